package dev.floe.handle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the public classes of {@code dev.floe.handle} promise once something they depend on is
 * closed: the defragmenter's loop when its space or its allocator closes first, and an
 * {@link AnchorageHeap} after its close.
 */
class HandleContractTest {
    private FloeAllocator alloc;

    @BeforeEach
    void open() {
        alloc = HandleTestSupport.allocator();
    }

    @AfterEach
    void close() {
        alloc.close();
    }

    /**
     * A space closed before its defragmenter made every later pass fail. In move-everything mode
     * the loop never went back to waiting: it logged a WARNING with a stack trace every few
     * milliseconds (48 in 2 s here), for as long as the defragmenter stayed open, and in either
     * mode its thread stayed alive holding the closed space.
     */
    @Test
    void theLoopEndsWhenItsSpaceIsClosedFirst() throws InterruptedException {
        HandleSpace s = new HandleSpace(alloc);
        s.allocate(100);
        DefragConfig config = DefragConfig.DEFAULTS.withMoveEverything(true).withLowPriority(false);
        try (Anchorage d = Anchorage.start(s, config)) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (d.stats().passes() == 0 && System.nanoTime() < deadline) Thread.sleep(1);
            s.close();
            while (d.isRunning() && System.nanoTime() < deadline) Thread.sleep(10);
            assertFalse(d.isRunning(), "the loop stops once its space is closed");
            assertEquals(0, d.failedPasses(), "the passes a closed space refuses are not failures to log");
        }
    }

    /**
     * The allocator closed under a running defragmenter (its space never closed) made every pass
     * fail on the closed region: the loop logged a WARNING with a stack trace after each one, every
     * few milliseconds in move-everything mode (every wake-up in normal mode), and its thread
     * never ended.
     */
    @Test
    void theLoopEndsWhenItsAllocatorIsClosedUnderIt() throws InterruptedException {
        FloeAllocator own = HandleTestSupport.allocator();
        HandleSpace s = new HandleSpace(own);
        s.allocate(100);
        DefragConfig config = DefragConfig.DEFAULTS.withMoveEverything(true).withLowPriority(false);
        try (Anchorage d = Anchorage.start(s, config)) {
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (d.stats().passes() == 0 && System.nanoTime() < deadline) Thread.sleep(1);
            own.close();
            while (d.isRunning() && System.nanoTime() < deadline) Thread.sleep(10);
            assertFalse(d.isRunning(), "the loop stops once its allocator is closed");
            assertEquals(0, d.failedPasses(), "the passes a closed allocator refuses are not failures to log");
        }
    }

    /** The same in the waiting state (normal mode): the loop ends at its next wake-up. */
    @Test
    void aWaitingLoopEndsAtItsNextWakeUpAfterItsSpaceCloses() throws InterruptedException {
        HandleSpace s = new HandleSpace(alloc);
        DefragConfig config = DefragConfig.DEFAULTS.withWakeInterval(java.time.Duration.ofMillis(10)).withLowPriority(false);
        try (Anchorage d = Anchorage.start(s, config)) {
            s.close();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (d.isRunning() && System.nanoTime() < deadline) Thread.sleep(10);
            assertFalse(d.isRunning());
        }
    }

    /**
     * A closed {@link AnchorageHeap} carved a fresh chunk for the next allocation (a pass still
     * copying when its space closed does that) and held it for ever: 256 KiB of the allocator
     * live that nothing would give back. Its frees answered "not in the handle area".
     */
    @Test
    void aClosedAnchorageHeapTakesNothingFromTheAllocator() {
        AnchorageHeap heap = new AnchorageHeap(alloc);
        HandleSpace s = new HandleSpace(alloc, heap, 1000);
        long h = s.allocate(100);
        assertTrue(s.isLive(h));
        long before = alloc.stats().liveBytes();
        s.close(); // closes the heap
        long afterClose = alloc.stats().liveBytes();
        assertTrue(afterClose < before, "the space's close gave its memory back");
        assertThrows(IllegalStateException.class, () -> heap.allocate(100, 1));
        assertThrows(IllegalStateException.class, () -> heap.free(1L << 29));
        assertThrows(IllegalStateException.class, () -> heap.usableSize(1L << 29));
        assertThrows(IllegalArgumentException.class, () -> heap.allocate(0, 1), "bad sizes are still bad sizes");
        assertEquals(afterClose, alloc.stats().liveBytes(), "nothing carved after the close");
        assertEquals(0, heap.chunkCount());
        assertEquals(0, heap.committedBytes());
    }
}
