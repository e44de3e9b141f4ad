package dev.floe.reclaim;

import static dev.floe.reclaim.NovaTestSupport.stamp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Robustness (Nova paper, appendix A; ARCHITECTURE.md invariant 5): a stalled thread prevents the
 * reclamation of at most one slice.
 *
 * <p>A <em>stalled writer</em> is a thread parked inside the writer lambda of {@link Nova#write}
 * on a slice (its hostage): it holds a hazard slot on that slice for as long as it is parked.
 * Meanwhile other threads allocate and delete thousands of slices, the hostage included. Checked:
 * <ul>
 *   <li>the hostage's deletion and every other operation complete while the writer is stalled
 *       (a stalled writer blocks nobody: lock-freedom);</li>
 *   <li>the hostage's block is never handed out again while the writer is inside it (safety);</li>
 *   <li>after {@link Nova#reclaimNow()} every deleted slice except the hostages is freed: exactly
 *       one waiting slice and one block of live memory per stalled writer (robustness);</li>
 *   <li>once the writers are released, the next {@code reclaimNow()} frees the hostages too, and
 *       the writers' bytes landed in their own hostage only.</li>
 * </ul>
 * Parameterized by batch size (Nova's N) and the number of stalled writers, including batches no
 * larger than the number of hostages, where a whole batch can consist of held slices.
 */
class NovaRobustnessTest {
    private static final long HOSTAGE_LENGTH = 200;
    private static final int CHURN_THREADS = 3;
    private static final int CHURN_PER_THREAD = 4000;

    @ParameterizedTest(name = "batch {0}, {1} stalled writer(s), {2}")
    @CsvSource({
            "8, 1, MAPPED",
            "1000, 1, MAPPED",
            "64, 4, ARENA_CHUNKS",
            "16, 4, MAPPED",
            "1, 1, MAPPED",
            "4, 4, ARENA_CHUNKS",
    })
    void stalledWritersHoldBackExactlyTheirOwnSlice(int batch, int stalled, RegionMode mode) throws Exception {
        try (FloeAllocator alloc = NovaTestSupport.open(mode)) {
            Nova nova = new Nova(alloc, batch);
            long[] hostages = new long[stalled];
            Set<Long> hostageHeaders = new HashSet<>();
            for (int i = 0; i < stalled; i++) {
                long p = nova.allocate(HOSTAGE_LENGTH);
                nova.writePrivate(p, (s, x) -> {
                    stamp(s, p);
                    return null;
                }, null);
                hostages[i] = p;
                hostageHeaders.add(SafePointer.headerOffset(p));
            }
            long hostageBlock = NovaTestSupport.blockSize(alloc, hostages[0]);

            CountDownLatch entered = new CountDownLatch(stalled);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            for (int i = 0; i < stalled; i++) {
                long p = hostages[i];
                Thread w = Thread.ofPlatform().daemon().name("stalled-writer-" + i).start(() -> {
                    try {
                        nova.write(p, (s, x) -> {
                            entered.countDown();
                            try {
                                if (!release.await(120, TimeUnit.SECONDS)) throw new AssertionError("never released");
                            } catch (InterruptedException e) {
                                throw new AssertionError(e);
                            }
                            // the slice is still ours: write the whole of it once more
                            stamp(s, p);
                            return null;
                        }, null);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, NovaTestSupport.explain(e, batch));
                    }
                });
                writers.add(w);
            }
            try {
                assertTrue(entered.await(30, TimeUnit.SECONDS), "writers entered their lambdas");

                // the hostages are deleted while their writers are inside them (delete must not wait)
                for (long p : hostages) {
                    try {
                        assertTrue(nova.delete(p), "deleting a hostage succeeds");
                    } catch (StackOverflowError e) {
                        throw new AssertionError("delete() of a slice held by a stalled writer did not return: "
                                + "the retire re-appends held slices, and with a batch (" + batch + ") no larger "
                                + "than the held slices (" + stalled + ") RetireBatches.add -> seal -> drain -> "
                                + "Nova.retire -> add recurses until the stack overflows", e);
                    }
                }

                // churn: many slices of the hostage's size class, allocated, written, deleted
                Set<Long> reusedHostage = ConcurrentHashMap.newKeySet();
                LongAdder deletes = new LongAdder();
                List<Thread> churn = new ArrayList<>();
                for (int t = 0; t < CHURN_THREADS; t++) {
                    churn.add(Thread.ofPlatform().daemon().name("churn-" + t).start(() -> {
                        try {
                            List<Long> mine = new ArrayList<>();
                            for (int i = 0; i < CHURN_PER_THREAD; i++) {
                                long q = nova.allocate(HOSTAGE_LENGTH - (i % 3) * 8); // same size class
                                if (hostageHeaders.contains(SafePointer.headerOffset(q))) {
                                    reusedHostage.add(q);
                                }
                                nova.write(q, (s, x) -> {
                                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, q);
                                    return null;
                                }, null);
                                mine.add(q);
                                if (mine.size() > 50) {
                                    assertTrue(nova.delete(mine.remove(0)));
                                    deletes.increment();
                                }
                            }
                            for (long q : mine) {
                                assertTrue(nova.delete(q));
                                deletes.increment();
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, NovaTestSupport.explain(e, batch));
                        }
                    }));
                }
                for (Thread t : churn) {
                    t.join(120_000);
                    if (t.isAlive()) fail(t.getName() + " is stuck while writers are stalled:\n" + stackOf(t));
                }
                if (failure.get() != null) throw new AssertionError("a thread failed while writers were stalled", failure.get());
                assertTrue(reusedHostage.isEmpty(),
                        () -> "a hostage block was reallocated while its writer was inside it: " + reusedHostage);
                assertEquals(CHURN_THREADS * CHURN_PER_THREAD, deletes.sum());

                nova.reclaimNow();
                assertEquals(stalled, nova.waitingSlices(),
                        "after reclaimNow() only the hostages wait (one per stalled writer)");
                assertEquals(stalled * hostageBlock, NovaTestSupport.liveBytes(alloc),
                        "every deleted slice but the hostages was freed");
            } finally {
                release.countDown();
                for (Thread w : writers) w.join(60_000);
            }
            if (failure.get() != null) throw new AssertionError("a stalled writer failed", failure.get());
            for (Thread w : writers) assertTrue(!w.isAlive(), w.getName() + " finished");

            // the writers rewrote their hostages at the very end: their bytes are still there (the
            // blocks were not reused), and only now may the hostages be reclaimed
            for (long p : hostages) {
                long hdr = SafePointer.headerOffset(p);
                long first = alloc.region().getLongPlain(hdr + 8);
                assertEquals(p, first, "a stalled writer's bytes landed in its own slice");
            }
            nova.reclaimNow();
            assertEquals(0, nova.waitingSlices(), "the hostages were freed once their writers left");
            assertEquals(0, NovaTestSupport.liveBytes(alloc), "nothing is live any more");
            // and their blocks can now be reallocated, with new versions
            long q = nova.allocate(HOSTAGE_LENGTH);
            for (long p : hostages) {
                if (SafePointer.headerOffset(p) == SafePointer.headerOffset(q)) {
                    assertNotEquals(SafePointer.version(p), SafePointer.version(q));
                }
            }
            assertTrue(nova.delete(q));
        }
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) sb.append("    at ").append(e).append('\n');
        return sb.toString();
    }
}
