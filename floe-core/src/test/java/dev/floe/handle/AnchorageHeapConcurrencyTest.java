package dev.floe.handle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.floe.memory.FloeAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The lock-free handle area ({@link AnchorageHeap}, {@link AreaChunk}) under concurrent
 * allocations, frees and evacuation marking: no block is handed out twice, the counters match
 * what is live, a chunk with room stays listed for allocations, and emptied chunks go back.
 */
class AnchorageHeapConcurrencyTest {
    private static final int THREADS = 4, OPS = 60_000;
    private static final int[] SIZES = {24, 240, 492, 1000};

    @Test
    void concurrentAllocateFreeAndEvacuationKeepBlocksExclusiveAndCountersExact() throws Exception {
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            AnchorageHeap heap = new AnchorageHeap(alloc, 64 << 10); // small chunks: frequent carve and release
            Set<Long> handedOut = ConcurrentHashMap.newKeySet();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch start = new CountDownLatch(1);
            List<List<Long>> kept = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                List<Long> mine = new ArrayList<>();
                kept.add(mine);
                int seed = t;
                threads.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    try {
                        start.await();
                        for (int i = 0; i < OPS; i++) {
                            if (mine.isEmpty() || rnd.nextInt(100) < 55) {
                                long off = heap.allocate(SIZES[rnd.nextInt(SIZES.length)], seed * OPS + i + 1);
                                if (!handedOut.add(off)) throw new AssertionError("block " + off + " handed out twice");
                                mine.add(off);
                            } else {
                                long off = mine.remove(rnd.nextInt(mine.size()));
                                handedOut.remove(off); // before the free: it may be handed out again at once
                                heap.free(off);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            // the defragmenter's side: mark and unmark chunks while allocations and frees run
            Thread marker = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    while (!stop.get()) {
                        for (int c = 0; c < AnchorageHeap.classCount(); c++) {
                            for (AreaChunk ch : heap.evacuationCandidates(c, false)) heap.endEvacuation(ch);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            start.countDown();
            for (Thread t : threads) t.join();
            stop.set(true);
            marker.join();
            if (failure.get() != null) throw new AssertionError(failure.get());

            long liveBytes = 0;
            for (List<Long> mine : kept) for (long off : mine) liveBytes += heap.usableSize(off);
            assertEquals(liveBytes, heap.liveBytes(), "live bytes are exactly the blocks held");
            assertEquals((long) heap.chunkCount() * heap.chunkSize(), heap.committedBytes(), "committed bytes are the chunks held");

            assertEquals(0, heap.unlistedChunksWithRoom(), "every chunk with room is listed for allocations");

            for (List<Long> mine : kept) for (long off : mine) heap.free(off);
            assertEquals(0, heap.liveBytes());
            assertEquals(0, heap.chunkCount(), "every emptied chunk went back");
            assertEquals(0, heap.committedBytes());
            assertEquals(0, alloc.stats().liveBytes(), "the allocator got every chunk back");
        }
    }

    @Test
    void freesOfBlocksNotHandedOutAreRefused() {
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            AnchorageHeap heap = new AnchorageHeap(alloc);
            long a = heap.allocate(240, 1);
            long b = heap.allocate(240, 2);
            assertThrows(IllegalArgumentException.class, () -> heap.free(a + 8), "not a block start");
            assertThrows(IllegalArgumentException.class, () -> heap.free(a + 3 * 256), "a block never handed out");
            heap.free(a);
            assertThrows(IllegalArgumentException.class, () -> heap.free(a), "double free");
            assertEquals(256, heap.liveBytes());
            heap.free(b);
            assertThrows(IllegalArgumentException.class, () -> heap.free(b), "free after the chunk went back");
            assertEquals(0, heap.chunkCount());
        }
    }
}
