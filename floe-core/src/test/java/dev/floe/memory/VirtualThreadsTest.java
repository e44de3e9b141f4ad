package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** ARCHITECTURE.md invariant 7: correct with virtual threads; per-thread state is bounded. */
class VirtualThreadsTest {

    /**
     * Invariant 7: caches belong to no thread, so thousands of short-lived virtual threads strand
     * nothing: once they are gone, trim() returns every byte.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void manyShortLivedVirtualThreadsStrandNothing(RegionMode mode) throws Exception {
        try (FloeAllocator a = TestSupport.builder(mode).superblockSize(64 << 10).build()) {
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Long> survivors = new ConcurrentLinkedQueue<>();
            LongAdder allocations = new LongAdder();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 5000; t++) {
                int id = t;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        long[] mine = new long[8];
                        for (int i = 0; i < mine.length; i++) {
                            mine[i] = a.allocate(1 + (id * 31L + i * 977L) % 20_000);
                            a.region().setLongPlain(mine[i], id * 8L + i + 1);
                            allocations.increment();
                            if (i % 3 == 0) Thread.yield();
                        }
                        for (int i = 0; i < mine.length; i++) {
                            assertEquals(id * 8L + i + 1, a.region().getLongPlain(mine[i]), "block overwritten");
                            if (i == 0) survivors.add(mine[i]); else a.free(mine[i]); // one outlives its thread
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                if (!t.join(java.time.Duration.ofSeconds(60))) fail("a virtual thread hangs");
            }
            if (!failures.isEmpty()) throw new AssertionError("a virtual thread failed", failures.peek());
            assertEquals(5000L * 8, allocations.sum());
            MemoryStats s = a.stats();
            TestSupport.assertQuiescentStatsConsistent(s, 64 << 10);
            assertEquals(5000, survivors.size());
            for (long off : survivors) a.free(off); // freed by a thread that did not allocate them
            a.trim();
            assertEverythingReturned(a, 64 << 10);
        }
    }

    /**
     * Invariant 7 (liveness with virtual threads): trim() is "safe to call at any time". A virtual
     * thread holding a cache stripe can be unmounted while it waits for the region's monitor; a
     * trim() that spins for that stripe on the only carrier must not keep it from ever running again.
     */
    @Test
    void trimOnAVirtualThreadDoesNotStarveAnUnmountedStripeHolder(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = ChildJvm.run(dir, VirtualThreadTrimChildMain.class, 90,
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1");
        String output = r.stdout() + r.stderr();
        int exit = r.exit();
        assertTrue(output.contains("trim finished"), "trim() on a virtual thread never finished:\n" + output);
        assertEquals(0, exit, output);
    }
}
