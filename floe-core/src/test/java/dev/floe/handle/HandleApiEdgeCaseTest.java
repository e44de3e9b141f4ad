package dev.floe.handle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Edge cases of the public API of {@code dev.floe.handle} that {@link HandleSpaceTest} and
 * {@link AnchorageControlTest} do not cover: handles used with a space that did not make them, a
 * service on another allocator, pins across the space's close, the memory a closed space gives
 * back, a reused id's pin status, and the defragmenter's misuse and lifecycle.
 */
class HandleApiEdgeCaseTest {
    private FloeAllocator alloc;
    private final List<HandleSpace> spaces = new ArrayList<>();

    @BeforeEach
    void open() {
        alloc = HandleTestSupport.allocator();
    }

    @AfterEach
    void close() {
        for (HandleSpace s : spaces) {
            try {
                s.close();
            } catch (IllegalStateException alreadyClosed) {
                // the test closed it
            }
        }
        alloc.close();
    }

    private HandleSpace space() {
        HandleSpace s = new HandleSpace(alloc);
        spaces.add(s);
        return s;
    }

    /**
     * Two spaces made the same (id, version) pairs, so a handle of one named an object of the
     * other, which read, write, free... reached silently. {@link StaleHandleException} promises a
     * failure for a handle "never made by this space".
     */
    @Test
    void aHandleOfAnotherSpaceIsStaleThereAndTouchesNothing() {
        HandleSpace a = space();
        HandleSpace b = space();
        for (int i = 0; i < 3; i++) { // several ids, and a reused one
            long inA = a.allocate(16);
            long inB = b.allocate(16);
            put(a, inA, 1L);
            put(b, inB, 2L);
            assertEquals(Handle.id(inA), Handle.id(inB), "both spaces hand out the same ids");
            assertNotEquals(inA, inB, "but not the same handles");

            assertThrows(StaleHandleException.class, () -> b.read(inA, s -> s.get(JAVA_LONG, 0)));
            assertThrows(StaleHandleException.class, () -> put(b, inA, 9L));
            assertThrows(StaleHandleException.class, () -> b.pin(inA));
            assertThrows(StaleHandleException.class, () -> b.size(inA));
            assertThrows(StaleHandleException.class, () -> b.move(inA));
            assertThrows(StaleHandleException.class, () -> b.isPinned(inA));
            assertThrows(StaleHandleException.class, () -> b.free(inA));
            assertFalse(b.isLive(inA));
            assertThrows(StaleHandleException.class, () -> a.read(inB, s -> s.get(JAVA_LONG, 0)));

            assertEquals(2L, (long) b.read(inB, s -> s.get(JAVA_LONG, 0)), "b's object untouched");
            assertEquals(1L, (long) a.read(inA, s -> s.get(JAVA_LONG, 0)));
            a.free(inA);
            b.free(inB);
            a.drainRetired();
            b.drainRetired();
        }
    }

    @Test
    void aServiceOnAnotherAllocatorIsRefused() {
        try (FloeAllocator other = HandleTestSupport.allocator()) {
            AnchorageHeap elsewhere = new AnchorageHeap(other);
            assertThrows(IllegalArgumentException.class,
                    () -> new HandleSpace(alloc, elsewhere, HandleSpace.DEFAULT_MAX_HANDLES));
            assertThrows(NullPointerException.class, () -> new HandleSpace(alloc, null, 10));
            assertThrows(IllegalArgumentException.class, () -> new HandleSpace(alloc, new AnchorageHeap(alloc), 0));
        }
    }

    /**
     * Ids are Java ints end to end (the service's {@code allocate}, the free list): a table that
     * could hand out id 2^31 would pass it on negative, fail that allocate with an index out of
     * bounds and leak its block. The largest table is refused up front instead.
     */
    @Test
    void moreHandlesThanPositiveIntIdsAreRefused() {
        AnchorageHeap heap = new AnchorageHeap(alloc);
        assertThrows(IllegalArgumentException.class, () -> new HandleSpace(alloc, heap, 1L << 31));
        assertThrows(IllegalArgumentException.class, () -> new HandleSpace(alloc, heap, Integer.MAX_VALUE));
        new HandleSpace(alloc, heap, Integer.MAX_VALUE - 1).close();
    }

    /**
     * An entry keeps an object's size in 32 bits, read back as an int. A service that accepts
     * larger objects (its {@code maxObjectSize} is its own) made the space ask it for them and
     * then keep a truncated or negative size: the object's views were cut short and a move copied
     * only part of it. The service here fails the test if it is asked for such an object.
     */
    @Test
    void objectsLargerThanAnEntryDescribesAreRefusedWhateverTheService() {
        HandleService boundless = new HandleService() {
            @Override
            public long maxObjectSize() {
                return Long.MAX_VALUE;
            }

            @Override
            public long allocate(long size, int id) {
                return org.junit.jupiter.api.Assertions.fail("the space asked for an object of " + size + " bytes");
            }

            @Override
            public void free(long offset) {}

            @Override
            public long usableSize(long offset) {
                return 0;
            }

            @Override
            public long committedBytes() {
                return 0;
            }

            @Override
            public long liveBytes() {
                return 0;
            }

            @Override
            public void close() {}
        };
        HandleSpace s = new HandleSpace(alloc, boundless, 10);
        spaces.add(s);
        assertEquals(Integer.MAX_VALUE, s.maxObjectSize());
        assertThrows(IllegalArgumentException.class, () -> s.allocate(1L << 31));
        assertThrows(IllegalArgumentException.class, () -> s.allocate((1L << 32) + 16));
    }

    /**
     * A second space on the same {@link AnchorageHeap} shared its chunks with the first, and
     * either space's close released the other's objects (the service's close frees everything).
     */
    @Test
    void anAnchorageHeapServesOneSpace() {
        AnchorageHeap heap = new AnchorageHeap(alloc);
        assertThrows(IllegalArgumentException.class, () -> new HandleSpace(alloc, heap, 0),
                "a refused space does not take the heap");
        HandleSpace first = new HandleSpace(alloc, heap, 100);
        spaces.add(first);
        assertThrows(IllegalArgumentException.class, () -> new HandleSpace(alloc, heap, 100));
        long h = first.allocate(8);
        put(first, h, 5L);
        assertEquals(5L, (long) first.read(h, s -> s.get(JAVA_LONG, 0)));
    }

    @Test
    void aPinOpenWhenTheSpaceClosesRefusesItsViewAndClosesHarmlessly() {
        HandleSpace s = space();
        long h = s.allocate(64);
        Pin p = s.pin(h);
        s.close();
        assertThrows(IllegalStateException.class, p::segment);
        assertEquals(h, p.handle());
        assertDoesNotThrow(p::close);
        assertThrows(IllegalStateException.class, () -> s.pin(h));
        assertThrows(IllegalStateException.class, () -> s.isPinned(h));
        assertThrows(IllegalStateException.class, () -> s.move(h));
        assertThrows(IllegalStateException.class, () -> s.size(h));
        assertThrows(IllegalStateException.class, s::drainRetired);
    }

    @Test
    void closingTheSpaceGivesEveryByteBackToTheAllocator() {
        long baseline = alloc.stats().liveBytes();
        HandleSpace s = space();
        List<Long> hs = new ArrayList<>();
        for (int i = 0; i < HandleTable.CHUNK_ENTRIES + 500; i++) hs.add(s.allocate(16 + (i % 50) * 32)); // two table chunks
        for (int i = 0; i < hs.size(); i += 3) s.free(hs.get(i)); // some retired, not drained
        Pin p = s.pin(hs.get(1)); // one pin still open
        assertTrue(alloc.stats().liveBytes() > baseline);
        s.close();
        assertEquals(baseline, alloc.stats().liveBytes(), "chunks, table and pending frees all went back");
        assertEquals(0, s.service().committedBytes());
        assertEquals(0, s.service().liveBytes());
        p.close();
    }

    /**
     * {@code isPinned} answered for the id, so a stale handle whose id was reused reported the
     * new object's pin. A freed handle whose id is not reused yet still answers for its block.
     */
    @Test
    void isPinnedOfAHandleWhoseIdWasReusedIsStale() {
        HandleSpace s = space();
        long h = s.allocate(32);
        try (Pin pinnedAfterFree = s.pin(h)) {
            s.free(h);
            assertTrue(s.isPinned(h), "the freed block is still pinned");
        }
        assertFalse(s.isPinned(h));
        s.drainRetired();
        long reused = s.allocate(32);
        assertEquals(Handle.id(h), Handle.id(reused));
        try (Pin p = s.pin(reused)) {
            assertTrue(s.isPinned(reused));
            assertThrows(StaleHandleException.class, () -> s.isPinned(h));
        }
        assertThrows(StaleHandleException.class, () -> s.isPinned(Handle.NULL));
    }

    @Test
    void aFullTableIsAClearException() {
        HandleSpace s = new HandleSpace(alloc, new AnchorageHeap(alloc), 3);
        spaces.add(s);
        long first = s.allocate(8);
        s.allocate(8);
        s.allocate(8);
        IllegalStateException full = assertThrows(IllegalStateException.class, () -> s.allocate(8));
        assertTrue(full.getMessage().contains("full"), full.getMessage());
        s.free(first);
        s.drainRetired();
        assertDoesNotThrow(() -> s.allocate(8), "a freed id makes room again");
    }

    /**
     * Freed handles hold their ids until their deferred free, which runs when a retire batch fills
     * (128 ids). With fewer handles than that, a thread that freed them all could never allocate
     * again: every allocate failed with "handle table full" until someone called drainRetired.
     */
    @Test
    void aTableFullOfFreedHandlesTakesBackTheirIdsOnAllocate() {
        HandleSpace s = new HandleSpace(alloc, new AnchorageHeap(alloc), 3);
        spaces.add(s);
        for (int round = 0; round < 5; round++) {
            long[] hs = {s.allocate(8), s.allocate(8), s.allocate(8)};
            for (long h : hs) s.free(h);
        }
        long pinned = s.allocate(8);
        try (Pin p = s.pin(pinned)) {
            s.free(pinned);
            s.allocate(8);
            s.allocate(8);
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> s.allocate(8),
                    "a pinned freed handle keeps its id");
            assertTrue(full.getMessage().contains("full"), full.getMessage());
        }
        assertDoesNotThrow(() -> s.allocate(8), "unpinned, its id comes back");
    }

    /**
     * Freed objects keep their blocks until their deferred free, which runs when a retire batch
     * fills (128 handles). Under a budget, a thread that freed all its objects could not allocate
     * them again: the blocks of the last 112 freed still held the budget, and allocate ran out
     * of memory though nothing was live.
     */
    @Test
    void anAllocationThatRunsOutOfBudgetFirstRunsTheDeferredFrees() {
        try (FloeAllocator small = FloeAllocator.builder().regionSize(1L << 30).budget(4L << 20).jmx(false)
                .name("handle-budget-edge-test").build()) {
            HandleSpace s = new HandleSpace(small);
            List<Long> handles = new ArrayList<>();
            try {
                while (true) handles.add(s.allocate(s.maxObjectSize()));
            } catch (dev.floe.memory.FloeOutOfMemoryException full) {
                // the budget is full
            }
            int n = handles.size();
            assertTrue(n > 128, "more objects than a retire batch: " + n);
            for (long h : handles) s.free(h);
            for (int i = 0; i < n; i++) s.allocate(s.maxObjectSize());
            s.close();
        }
    }

    /**
     * The same for the handle table's next chunk: the first id past a chunk (16,384 ids) on a full
     * budget, while fewer freed objects wait than a retire batch holds. It threw
     * {@code FloeOutOfMemoryException}; only the object's block was retried after a drain.
     */
    @Test
    void anIdThatNeedsANewTableChunkOnAFullBudgetFirstRunsTheDeferredFrees() {
        try (FloeAllocator small = FloeAllocator.builder().regionSize(1L << 30).budget(16L << 20).jmx(false)
                .name("handle-table-budget-edge-test").build()) {
            HandleSpace s = new HandleSpace(small);
            int big = 100; // fewer than a retire batch: their frees wait
            for (int i = 0; i < HandleTable.CHUNK_ENTRIES - 1 - big; i++) s.allocate(8); // id 0 is never used
            List<Long> freed = new ArrayList<>();
            for (int i = 0; i < big; i++) freed.add(s.allocate(16 << 10)); // the last ids of the first chunk
            try {
                while (true) small.allocate(16 << 10);
            } catch (dev.floe.memory.FloeOutOfMemoryException full) {
                // the budget is full
            }
            for (long h : freed) s.free(h);
            long h = assertDoesNotThrow(() -> s.allocate(8), "a new id needs the table's second chunk");
            assertEquals(8, s.size(h));
            s.close();
        }
    }

    /** A space or heap on a closed allocator is refused when built, as Nova and ManualHeap refuse one (it was accepted). */
    @Test
    void aClosedAllocatorIsRefusedWhenASpaceOrHeapIsBuilt() {
        FloeAllocator closed = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build();
        AnchorageHeap heap = new AnchorageHeap(closed);
        closed.close();
        assertThrows(IllegalStateException.class, () -> new HandleSpace(closed));
        assertThrows(IllegalStateException.class, () -> new AnchorageHeap(closed));
        assertThrows(IllegalStateException.class, () -> new HandleSpace(closed, heap, 1_000));
    }

    @Test
    void theDefragmenterRefusesANullOrClosedSpace() {
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> Anchorage.manual(null, DefragConfig.DEFAULTS));
        assertEquals("space", npe.getMessage());
        HandleSpace s = space();
        assertThrows(NullPointerException.class, () -> Anchorage.manual(s, null));
        s.close();
        assertThrows(IllegalStateException.class, () -> Anchorage.manual(s, DefragConfig.DEFAULTS));
        assertThrows(IllegalStateException.class, () -> Anchorage.start(s, DefragConfig.DEFAULTS));
    }

    /**
     * close waits for the pass in progress also when the closing thread is interrupted: it
     * returned at once (the interrupted wait threw), and the pass ended after the close.
     * Passes run back to back from another thread, so one is in progress at the close.
     */
    @Test
    void closeOnAnInterruptedThreadStillWaitsForThePassInProgress() throws InterruptedException {
        HandleSpace s = space();
        for (int i = 0; i < 20_000; i++) s.allocate(64);
        Anchorage d = Anchorage.manual(s, DefragConfig.DEFAULTS.withMoveEverything(true));
        Thread passes = Thread.ofPlatform().start(() -> {
            try {
                while (true) d.runPass();
            } catch (IllegalStateException closed) {
                // the close: done
            }
        });
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (d.stats().passes() < 1 && System.nanoTime() < deadline) Thread.sleep(1);
        Thread.currentThread().interrupt();
        d.close();
        assertTrue(Thread.interrupted(), "the close kept the interrupt");
        long atClose = d.stats().passes();
        passes.join(10_000);
        assertEquals(atClose, d.stats().passes(), "a pass ended after the close returned");
    }

    /** {@code close} said it stops the service; a manual defragmenter kept running passes. */
    @Test
    void aClosedDefragmenterRunsNoMorePassesButKeepsItsStats() {
        HandleSpace s = space();
        long h = s.allocate(100);
        Anchorage d = Anchorage.manual(s, DefragConfig.DEFAULTS.withMoveEverything(true));
        assertTrue(d.runPass() > 0);
        d.close();
        assertThrows(IllegalStateException.class, d::runPass);
        assertEquals(1, d.stats().passes());
        assertFalse(d.isRunning());
        assertDoesNotThrow(d::close, "closing twice is harmless");
        assertEquals(0L, (long) s.read(h, seg -> seg.get(JAVA_LONG, 0)));
    }

    /**
     * {@code DefragConfig} accepts any positive wake interval, but the loop converted it with
     * {@code Duration.toNanos}, which overflows past 292 years: the service thread died at its
     * first statement with an {@link ArithmeticException}.
     */
    @Test
    void aWakeIntervalBeyondTheNanosecondRangeKeepsTheLoopAlive() throws InterruptedException {
        HandleSpace s = space();
        DefragConfig forever = DefragConfig.DEFAULTS.withWakeInterval(Duration.ofDays(365L * 1000)).withLowPriority(false);
        try (Anchorage d = Anchorage.start(s, forever)) {
            Thread.sleep(200); // the thread died within microseconds of its start
            assertTrue(d.isRunning());
        }
    }

    private static void put(HandleSpace space, long h, long value) {
        space.write(h, seg -> {
            seg.set(JAVA_LONG, 0, value);
            return null;
        });
    }
}
