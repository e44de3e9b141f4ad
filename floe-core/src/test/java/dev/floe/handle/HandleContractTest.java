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

    /**
     * A space closed while a pass was moving: the pass went on copying into chunks the close had
     * given back to the allocator (and so to its next user), carved chunks the closed heap never
     * gave back, and wrote into the freed handle table. The close now waits for the pass, which
     * stops after its batch in progress: once the close returns, the allocator holds nothing of
     * the space, and blocks allocated after it keep what their owner wrote.
     */
    @Test
    void aSpaceClosedDuringAPassGetsAllItsMemoryBackAndThePassWritesNothingAfter() throws Exception {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        DefragConfig config = DefragConfig.DEFAULTS.withMoveEverything(true).withLowPriority(false);
        for (int round = 0; round < 40; round++) {
            long baseline = alloc.stats().liveBytes();
            HandleSpace s = new HandleSpace(alloc);
            long[] handles = new long[3000];
            for (int i = 0; i < handles.length; i++) handles[i] = s.allocate(16 + random.nextInt(600));
            for (int i = 0; i < handles.length; i += 2) s.free(handles[i]); // sparse chunks to evacuate
            Anchorage d = Anchorage.manual(s, config);
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            Thread pass = Thread.ofPlatform().start(() -> {
                started.countDown();
                try {
                    d.runPass();
                } catch (IllegalStateException closedUnderIt) {
                    // the close came first
                }
            });
            started.await();
            for (int spin = random.nextInt(20_000); spin > 0; spin--) Thread.onSpinWait();
            s.close();
            assertEquals(baseline, alloc.stats().liveBytes(), "round " + round + ": the close gave everything back");
            long[] after = new long[64];
            for (int i = 0; i < after.length; i++) {
                after[i] = alloc.allocate(4096);
                alloc.segment(after[i]).fill((byte) 0x5A);
            }
            pass.join();
            d.close();
            for (long b : after) {
                java.lang.foreign.MemorySegment m = alloc.segment(b);
                for (long o = 0; o < m.byteSize(); o++) {
                    if (m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, o) != 0x5A) {
                        throw new AssertionError("round " + round + ": a pass wrote into a block allocated after the close");
                    }
                }
                alloc.free(b);
            }
            assertEquals(baseline, alloc.stats().liveBytes(), "round " + round + ": nothing carved after the close");
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
