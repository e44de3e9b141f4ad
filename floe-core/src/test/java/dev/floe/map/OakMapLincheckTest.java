package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link OakMap} with Lincheck, in stress mode only: the model checker
 * explores interleavings of the JVM's shared-memory accesses it instruments, and cannot see the
 * map's off-heap memory (keys, values and their lock words live in native segments), so it would
 * report false results. Stress mode runs random scenarios of a few operations on real threads,
 * many times, and checks each outcome against a sequential specification (a {@link TreeMap}).
 *
 * <p>Keys are 1..4 and chunks hold at most 4 entries, so the scenarios' updates split, merge and
 * compact chunks. Values are 1..3; the in-place computes add 10; a failing writer adds 100 (and
 * may grow the value) before it throws, which must leave no trace. A third mix ({@link ComputeOps})
 * runs the legacy compute family, the conditional updates and the polls on values whose +10
 * outgrows their slice, so that updates move values while others read, lock and remove them.
 *
 * <p>Four deterministic tests replay, as regression tests, the races behind the violations these
 * checks found (two in inserts, two in navigation), by pausing one thread at a precise point
 * through a comparator hook (the comparator is the only user code the map calls in the middle of
 * a lookup, an insert or a scan). Longer hunts: {@code -Dfloe.lincheck.iterations=...},
 * {@code -Dfloe.lincheck.invocations=...}; {@code -Dfloe.lincheck.minimize=true} reports the
 * smallest failing scenario.
 */
class OakMapLincheckTest {

    /** Point operations of both APIs. */
    @Param(name = "key", gen = IntGen.class, conf = "1:4")
    @Param(name = "value", gen = IntGen.class, conf = "1:3")
    public static class PointOps {
        final OakMap<Long, Long> map =
                OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(4).build();

        @Operation
        public Long get(@Param(name = "key") int k) {
            return map.get((long) k);
        }

        @Operation
        public Long zcGet(@Param(name = "key") int k) {
            OakReadBuffer b = map.zc().get((long) k);
            if (b == null) return null;
            try {
                return b.getLong(0);
            } catch (RemovedValueException e) {
                return null; // removed between get and read: absent at that moment
            }
        }

        @Operation
        public boolean containsKey(@Param(name = "key") int k) {
            return map.containsKey((long) k);
        }

        @Operation
        public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.put((long) k, (long) v);
        }

        @Operation
        public void zcPut(@Param(name = "key") int k, @Param(name = "value") int v) {
            map.zc().put((long) k, (long) v);
        }

        @Operation
        public Long putIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.putIfAbsent((long) k, (long) v);
        }

        @Operation
        public boolean zcPutIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.zc().putIfAbsent((long) k, (long) v);
        }

        @Operation
        public Long remove(@Param(name = "key") int k) {
            return map.remove((long) k);
        }

        @Operation
        public boolean zcRemove(@Param(name = "key") int k) {
            return map.zc().remove((long) k);
        }

        @Operation
        public boolean zcComputeIfPresent(@Param(name = "key") int k) {
            return map.zc().computeIfPresent((long) k, b -> b.putLong(0, b.getLong(0) + 10));
        }

        @Operation
        public boolean zcPutIfAbsentComputeIfPresent(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.zc().putIfAbsentComputeIfPresent((long) k, (long) v, b -> b.putLong(0, b.getLong(0) + 10));
        }

        @Operation
        public Long merge(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.merge((long) k, (long) v, Long::sum);
        }

        /**
         * A writer that adds 100 in place, grows the value beyond its slice (value 1: a copy) or
         * not, and throws: a no-op whose writes are undone; true if the key was present.
         */
        @Operation
        public boolean zcFailedWriter(@Param(name = "key") int k, @Param(name = "value") int v) {
            try {
                return map.zc().computeIfPresent((long) k, b -> {
                    b.putLong(0, b.getLong(0) + 100);
                    if (v == 1) b.resize(64);
                    throw new WriterFailed();
                });
            } catch (WriterFailed e) {
                return true;
            }
        }
    }

    /** Point operations plus navigation. */
    public static class AllOps extends PointOps {
        @Operation
        public Long ceilingKey(@Param(name = "key") int k) {
            return map.ceilingKey((long) k);
        }

        @Operation
        public Long floorKey(@Param(name = "key") int k) {
            return map.floorKey((long) k);
        }

        @Operation
        public Long higherKey(@Param(name = "key") int k) {
            return map.higherKey((long) k);
        }

        @Operation
        public Long lowerKey(@Param(name = "key") int k) {
            return map.lowerKey((long) k);
        }

        @Operation
        public Long firstKey() {
            Map.Entry<Long, Long> e = map.firstEntry();
            return e == null ? null : e.getKey();
        }

        @Operation
        public Long lastKey() {
            Map.Entry<Long, Long> e = map.lastEntry();
            return e == null ? null : e.getKey();
        }

        @Operation
        public boolean isEmpty() {
            return map.isEmpty();
        }

        /** Keys 1 to 2: the view whose emptiness a put of 3 or 4 and a remove race over. */
        @Operation
        public boolean lowKeysEmpty() {
            return map.headMap(3L, false).isEmpty();
        }
    }

    /** The sequential specification: a TreeMap with the same operations. */
    public static class Spec {
        private final TreeMap<Long, Long> m = new TreeMap<>();

        public Long get(int k) {
            return m.get((long) k);
        }

        public Long zcGet(int k) {
            return m.get((long) k);
        }

        public boolean containsKey(int k) {
            return m.containsKey((long) k);
        }

        public Long put(int k, int v) {
            return m.put((long) k, (long) v);
        }

        public void zcPut(int k, int v) {
            m.put((long) k, (long) v);
        }

        public Long putIfAbsent(int k, int v) {
            return m.putIfAbsent((long) k, (long) v);
        }

        public boolean zcPutIfAbsent(int k, int v) {
            return m.putIfAbsent((long) k, (long) v) == null;
        }

        public Long remove(int k) {
            return m.remove((long) k);
        }

        public boolean zcRemove(int k) {
            return m.remove((long) k) != null;
        }

        public boolean zcComputeIfPresent(int k) {
            return m.computeIfPresent((long) k, (kk, v) -> v + 10) != null;
        }

        public boolean zcPutIfAbsentComputeIfPresent(int k, int v) {
            if (m.putIfAbsent((long) k, (long) v) == null) return true;
            m.computeIfPresent((long) k, (kk, old) -> old + 10);
            return false;
        }

        public Long merge(int k, int v) {
            return m.merge((long) k, (long) v, Long::sum);
        }

        public boolean zcFailedWriter(int k, int v) {
            return m.containsKey((long) k);
        }

        public Long ceilingKey(int k) {
            return m.ceilingKey((long) k);
        }

        public Long floorKey(int k) {
            return m.floorKey((long) k);
        }

        public Long higherKey(int k) {
            return m.higherKey((long) k);
        }

        public Long lowerKey(int k) {
            return m.lowerKey((long) k);
        }

        public Long firstKey() {
            return m.isEmpty() ? null : m.firstKey();
        }

        public Long lastKey() {
            return m.isEmpty() ? null : m.lastKey();
        }

        public boolean isEmpty() {
            return m.isEmpty();
        }

        public boolean lowKeysEmpty() {
            return m.headMap(3L, false).isEmpty();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Spec s && m.equals(s.m);
        }

        @Override
        public int hashCode() {
            return m.hashCode();
        }
    }

    /**
     * Longs whose serialized size depends on the value: 8 bytes below 10, 200 bytes from 10 on, so
     * that the computes' +10 grows a value beyond its slice (a move to a new slice) and a put of
     * a small value shrinks it again in place.
     */
    static final OakSerializer<Long> GROWING = new OakSerializer<>() {
        @Override
        public void serialize(Long v, MemorySegment target) {
            target.fill((byte) 0);
            target.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
        }

        @Override
        public Long deserialize(MemorySegment source) {
            return source.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        public int sizeOf(Long v) {
            return v < 10 ? 8 : 200;
        }
    };

    /**
     * The legacy compute family, conditional updates and polls, with values that grow beyond
     * their slice (moves) and shrink, on 4-entry chunks. A poll returns {@code key * 1000 + value}.
     */
    @Param(name = "key", gen = IntGen.class, conf = "1:4")
    @Param(name = "value", gen = IntGen.class, conf = "1:3")
    public static class ComputeOps {
        final OakMap<Long, Long> map =
                OakMap.builder(OakCodecs.LONG, GROWING, OakCodecs.LONG).maxChunkEntries(4).build();

        @Operation
        public Long get(@Param(name = "key") int k) {
            return map.get((long) k);
        }

        @Operation
        public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.put((long) k, (long) v);
        }

        @Operation
        public Long remove(@Param(name = "key") int k) {
            return map.remove((long) k);
        }

        @Operation
        public boolean removeIfMapped(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.remove((long) k, (long) v);
        }

        @Operation
        public Long replace(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.replace((long) k, (long) v);
        }

        @Operation
        public boolean replaceIfMapped(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.replace((long) k, (long) v, (long) v + 10);
        }

        @Operation
        public Long compute(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.compute((long) k, (kk, old) -> old == null ? (long) v : old >= 20 ? null : old + 10);
        }

        @Operation
        public Long computeIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.computeIfAbsent((long) k, kk -> (long) v);
        }

        @Operation
        public boolean containsKey(@Param(name = "key") int k) {
            return map.containsKey((long) k);
        }

        @Operation
        public Long computeIfPresent(@Param(name = "key") int k) {
            return map.computeIfPresent((long) k, (kk, old) -> old + 10);
        }

        @Operation
        public Long merge(@Param(name = "key") int k, @Param(name = "value") int v) {
            return map.merge((long) k, (long) v, Long::sum);
        }

        @Operation
        public boolean zcGrow(@Param(name = "key") int k) {
            return map.zc().computeIfPresent((long) k, b -> {
                long old = b.getLong(0);
                b.resize(200);
                b.putLong(0, old + 10);
            });
        }

        @Operation
        public Long pollFirst() {
            return code(map.pollFirstEntry());
        }

        @Operation
        public Long pollLast() {
            return code(map.pollLastEntry());
        }

        static Long code(Map.Entry<Long, Long> e) {
            return e == null ? null : e.getKey() * 1000 + e.getValue();
        }
    }

    /** The specification of {@link ComputeOps}: a TreeMap. */
    public static class ComputeSpec {
        private final TreeMap<Long, Long> m = new TreeMap<>();

        public Long get(int k) {
            return m.get((long) k);
        }

        public Long put(int k, int v) {
            return m.put((long) k, (long) v);
        }

        public Long remove(int k) {
            return m.remove((long) k);
        }

        public boolean removeIfMapped(int k, int v) {
            return m.remove((long) k, (long) v);
        }

        public Long replace(int k, int v) {
            return m.replace((long) k, (long) v);
        }

        public boolean replaceIfMapped(int k, int v) {
            return m.replace((long) k, (long) v, (long) v + 10);
        }

        public Long compute(int k, int v) {
            return m.compute((long) k, (kk, old) -> old == null ? (long) v : old >= 20 ? null : old + 10);
        }

        public Long computeIfAbsent(int k, int v) {
            return m.computeIfAbsent((long) k, kk -> (long) v);
        }

        public boolean containsKey(int k) {
            return m.containsKey((long) k);
        }

        public Long computeIfPresent(int k) {
            return m.computeIfPresent((long) k, (kk, old) -> old + 10);
        }

        public Long merge(int k, int v) {
            return m.merge((long) k, (long) v, Long::sum);
        }

        public boolean zcGrow(int k) {
            return m.computeIfPresent((long) k, (kk, old) -> old + 10) != null;
        }

        public Long pollFirst() {
            return ComputeOps.code(m.pollFirstEntry());
        }

        public Long pollLast() {
            return ComputeOps.code(m.pollLastEntry());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ComputeSpec s && m.equals(s.m);
        }

        @Override
        public int hashCode() {
            return m.hashCode();
        }
    }

    /**
     * Scenarios per test and runs per scenario. Lincheck's stress mode costs about 2.5 ms per run
     * on a 2-core machine, so 12 x 200 keeps each test under 10 s; raise them with
     * -Dfloe.lincheck.iterations / -Dfloe.lincheck.invocations for a longer hunt.
     */
    private static final int ITERATIONS = Integer.getInteger("floe.lincheck.iterations", 12);
    private static final int INVOCATIONS = Integer.getInteger("floe.lincheck.invocations", 200);

    private static StressOptions options() {
        return new StressOptions()
                .iterations(ITERATIONS)
                .invocationsPerIteration(INVOCATIONS)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(3)
                .actorsAfter(2)
                // minimizing a rare failure re-runs every smaller scenario for all invocations
                // (minutes); -Dfloe.lincheck.minimize=true asks for the smallest failing scenario
                .minimizeFailedScenario(Boolean.getBoolean("floe.lincheck.minimize"))
                .sequentialSpecification(Spec.class);
    }

    /** get, put, putIfAbsent, remove, merge and the zero-copy updates are linearizable. */
    @Test
    void pointOperationsAreLinearizable() {
        options().check(PointOps.class);
    }

    /** The same with ceilingKey, floorKey, higherKey, lowerKey, first and last key, and isEmpty of the map and a head map in the mix. */
    @Test
    void pointAndNavigationOperationsAreLinearizable() {
        options().check(AllOps.class);
    }

    /** compute, computeIfAbsent, computeIfPresent, merge, replace, conditional remove, containsKey and polls, with moves. */
    @Test
    void computeFamilyAndPollsAreLinearizable() {
        options().sequentialSpecification(ComputeSpec.class).check(ComputeOps.class);
    }

    // ---- the harness catches violations ---------------------------------------------------------

    /** A counter map whose increment is a racy get-then-put: not linearizable. */
    @Param(name = "key", gen = IntGen.class, conf = "1:2")
    public static class RacyCounter {
        private final ConcurrentHashMap<Integer, Long> m = new ConcurrentHashMap<>();

        @Operation
        public long increment(@Param(name = "key") int k) {
            long v = m.getOrDefault(k, 0L) + 1;
            for (long end = System.nanoTime() + 200_000; System.nanoTime() < end; ) Thread.onSpinWait();
            m.put(k, v);
            return v;
        }
    }

    public static class CounterSpec {
        private final TreeMap<Integer, Long> m = new TreeMap<>();

        public long increment(int k) {
            return m.merge(k, 1L, Long::sum);
        }
    }

    /** Sanity check of the setup: stress mode on this JVM does catch a lost update. */
    @Test
    void stressModeCatchesANonLinearizableCounter() {
        assertThrows(LincheckAssertionError.class, () -> new StressOptions()
                .iterations(10)
                .invocationsPerIteration(200)
                .minimizeFailedScenario(false)
                .threads(2)
                .actorsPerThread(2)
                .sequentialSpecification(CounterSpec.class)
                .check(RacyCounter.class));
    }

    // ---- deterministic navigation scenarios -----------------------------------------------------

    /**
     * A comparator over longs that, once armed, blocks the {@code nth} comparison of
     * {@code probe} (the very object) against the serialized key {@code key}, until released;
     * comparisons after that one do not block.
     */
    static final class PausingComparator implements OakComparator<Long> {
        volatile Long probe;
        volatile long key;
        final AtomicInteger countdown = new AtomicInteger();
        final CountDownLatch paused = new CountDownLatch(1), release = new CountDownLatch(1);

        void arm(Long probe, long key, int nth) {
            this.probe = probe;
            this.key = key;
            countdown.set(nth);
        }

        @Override
        public int compareKeys(Long a, Long b) {
            return OakCodecs.LONG.compareKeys(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }

        @Override
        public int compareKeyAndSerializedKey(Long k, MemorySegment serialized) {
            int c = OakCodecs.LONG.compareKeyAndSerializedKey(k, serialized);
            if (k == probe && OakCodecs.LONG.deserialize(serialized) == key && countdown.get() > 0
                    && countdown.decrementAndGet() == 0) {
                paused.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) throw new AssertionError("never released");
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            return c;
        }
    }

    /** Runs {@code reader} on a thread until it pauses in the comparator, then {@code writer}, then lets it go. */
    private static <T> T pauseAndWrite(PausingComparator cmp, java.util.concurrent.Callable<T> reader, Runnable writer)
            throws Exception {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(reader);
        Thread t = Thread.ofPlatform().name("oak-paused-reader").start(task);
        assertTrue(cmp.paused.await(30, TimeUnit.SECONDS), "the reader never reached the pause point");
        writer.run();
        cmp.release.countDown();
        T result = task.get(30, TimeUnit.SECONDS);
        t.join();
        return result;
    }

    /**
     * ceilingKey(54) on {50, 60}: the reader's search stops at 50 (its next key, 60, is above the
     * probe) and pauses in that comparison; 53 is inserted after 50. A cursor that then starts at
     * 50's successor (now 53) without checking the low bound returns 53 (it did before commit
     * 6421c37). The result must be 60: 53 is below the probe, never a valid ceiling.
     */
    @Test
    void ceilingKeyIsNeverBelowTheProbe() throws Exception {
        PausingComparator cmp = new PausingComparator();
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            map.put(50L, 1L);
            map.put(60L, 1L);
            Long probe = 54L; // one object: the hook recognises it by identity
            cmp.arm(probe, 60, 1); // the search's comparison with 60, the last one
            Long got = pauseAndWrite(cmp, () -> map.ceilingKey(probe), () -> map.put(53L, 1L));
            assertEquals(60L, got, "ceilingKey(54) with 53 inserted concurrently (53 is below the probe)");
        }
    }

    /**
     * ceilingKey(1) of the view [0, 100] on {2, 3}: the reader reads key 2's value pointer, then
     * pauses comparing key 2 with the view's high bound; meanwhile 1 is inserted and then 2
     * removed. The map went {2,3} → {1,2,3} → {1,3}: a linearizable ceilingKey(1) returns 2 or 1
     * (ConcurrentSkipListMap does). A cursor that skips the removed 2 and goes on returns 3, a
     * ceiling the map never had (it did before commit 6421c37).
     */
    @Test
    void ceilingKeyOfAViewIsLinearizable() throws Exception {
        PausingComparator cmp = new PausingComparator();
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            map.put(2L, 1L);
            map.put(3L, 1L);
            Long hi = 100L;
            var view = map.subMap(0L, true, hi, true);
            cmp.arm(hi, 2, 1);
            Long got = pauseAndWrite(cmp, () -> view.ceilingKey(1L), () -> {
                map.put(1L, 1L);
                map.remove(2L);
            });
            assertTrue(Objects.equals(got, 1L) || Objects.equals(got, 2L),
                    "ceilingKey(1) while the map went {2,3} -> {1,2,3} -> {1,3} returned " + got);
        }
    }

    /**
     * Two concurrent inserts of the same new key: exactly one may insert (return null). The
     * first, put(55, 1) on {60}, pauses in its link step, comparing 55 with 60 (its search made
     * the same comparison first); meanwhile put(55, 2) links its entry after the chunk's head.
     * Before commit 6421c37 the paused insert then re-read the head's successor (now the other
     * 55) and linked its own entry in front of it without comparing: the key was in the chunk
     * twice, both puts returned null, size() said 2 and, after one remove, the key was absent for
     * get but still scanned. (Lincheck's minimal scenario: put(2, 2) || putIfAbsent(2, 2), both
     * null.)
     */
    @Test
    void concurrentInsertsOfOneKeyLinkOneEntry() throws Exception {
        PausingComparator cmp = new PausingComparator();
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            map.put(60L, 6L);
            Long key = 55L;
            cmp.arm(key, 60, 2); // 1: the search's comparison, 2: the link's
            AtomicReference<Long> second = new AtomicReference<>(-1L);
            Long first = pauseAndWrite(cmp, () -> map.put(key, 1L), () -> second.set(map.put(key, 2L)));
            assertTrue(first == null ^ second.get() == null,
                    "two concurrent puts of a new key: exactly one inserts; returned " + first + " and " + second.get());
            assertEquals(java.util.List.of(55L, 60L), new java.util.ArrayList<>(map.keySet()));
            assertEquals(2, map.size());
            map.remove(key);
            assertEquals(java.util.List.of(60L), new java.util.ArrayList<>(map.keySet()), "after removing 55");
        }
    }

    /**
     * The same race with different keys: put(55) on {60} pauses in its link step as above while
     * put(53) links 53 after the head. Before commit 6421c37 the paused insert linked 55 in front
     * of 53, so the chunk's list read 55, 53, 60 and a search for 53 stopped at 55: get(53) was
     * null though put(53) had returned (inserted), and scans were out of order.
     */
    @Test
    void concurrentInsertsKeepTheChunkSorted() throws Exception {
        PausingComparator cmp = new PausingComparator();
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            map.put(60L, 6L);
            Long key = 55L;
            cmp.arm(key, 60, 2);
            pauseAndWrite(cmp, () -> map.put(key, 5L), () -> map.put(53L, 3L));
            assertEquals(3L, map.get(53L), "get(53) after put(53) completed");
            assertEquals(5L, map.get(55L));
            assertEquals(java.util.List.of(53L, 55L, 60L), new java.util.ArrayList<>(map.keySet()));
        }
    }
}
