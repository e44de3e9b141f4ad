package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.reclaim.Nova;
import dev.floe.reclaim.SafePointer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Concurrent stress tests of {@link OakMap} with tiny chunks ({@code maxChunkEntries(4)}), so that
 * a few updates are enough to split, merge or compact a chunk: rebalances run all the time under
 * the readers, scanners and writers.
 *
 * <p>Every check is an invariant that holds for every interleaving (no timing assertions):
 * <ul>
 *   <li>scans are strictly sorted, hold every key present throughout the scan and no key absent
 *       throughout it;</li>
 *   <li>in-place computes run exactly once, and none is lost;</li>
 *   <li>exactly one of racing putIfAbsents (removes) wins per key, and polls from both ends take
 *       every entry exactly once;</li>
 *   <li>readers never see a torn value, nor a value never written for the key, nor (reading a key
 *       no writer touches meanwhile) anything but its current value;</li>
 *   <li>churn with reclamation keeps the memory bounded, and a removed key stays absent once
 *       its value's memory is reused;</li>
 *   <li>one scenario of each of compute and reads also runs on virtual threads.</li>
 * </ul>
 * Every scenario fails, with the stacks of the threads still running, if it has not ended
 * {@link #GRACE_NANOS} after its deadline (a hang or livelock), and every scan fails past
 * {@link #SCAN_LIMIT} elements (a cycle) instead of filling the heap.
 * Writers own disjoint key sets where a test needs to know the exact state of a key (then every
 * return value is checked exactly against the owner's model). Each timed phase lasts about
 * {@code 0.6 * floe.stress.seconds} (3 s by default, 180 s with {@code -Pstress}).
 */
class OakMapStressTest {
    private static final long SECONDS = Long.getLong("floe.stress.seconds", 3);
    /** Length of a timed phase (1.8 s by default). */
    private static final long PHASE_NANOS = TimeUnit.MILLISECONDS.toNanos(Math.max(500, SECONDS * 600));
    /** Operations per worker of the count-based tests: more with -Pstress. */
    private static final int SCALE = (int) Math.max(1, Math.min(SECONDS / 3, 20));
    /** More elements than any scan of these tests can return (more means the scan does not end). */
    private static final int SCAN_LIMIT = 100_000;
    /** Deadline of the count-based scenarios: none (their threads stop when the work is done). */
    private static final long COUNTED_NANOS = 0;
    /** How long after its deadline a scenario may still run before it counts as hung. */
    private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(15L * SCALE);

    static OakMap<Long, Long> newMap() {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(4).build();
    }

    /** A value that names its key: key in the high 32 bits, a sequence number in the low ones. */
    static long enc(long key, long seq) {
        return (key << 32) | (seq & 0xFFFF_FFFFL);
    }

    static long keyOf(long value) {
        return value >>> 32;
    }

    static long seqOf(long value) {
        return value & 0xFFFF_FFFFL;
    }

    // =============================================================================================
    // scans
    // =============================================================================================

    /**
     * Keys 0..N-1: multiples of 4 are "stable" (inserted first, never removed), keys 4i+2 are
     * churned by two writers (each owns half of them), odd keys are never inserted. Scanners run
     * every kind of scan (legacy and zero-copy, ascending and descending, whole map and
     * sub-views); each scan must be strictly sorted in its direction, hold every stable key of its
     * range and no odd key. At the end, on the quiescent map, everything must equal the owners'
     * model, and descending scans the reversed ascending ones.
     */
    @Test
    void scansAreSortedCompleteAndInventNothing() throws Exception {
        final int n = 2400;
        try (OakMap<Long, Long> map = newMap()) {
            boolean[][] present = new boolean[2][n];
            for (long k = 0; k < n; k += 4) map.put(k, enc(k, 0));
            for (long k = 2; k < n; k += 8) { // churn keys 8i+2: owner (k/4)%2 == 0
                map.put(k, enc(k, 0));
                present[0][(int) k] = true;
            }
            Crew crew = new Crew(platform("scan"));
            for (int w = 0; w < 2; w++) {
                int id = w;
                crew.add("writer-" + w, () -> churnOwned(crew, map, id, n, present[id]));
            }
            AtomicLong scans = new AtomicLong();
            for (int s = 0; s < 2; s++) {
                int id = s;
                crew.add("scanner-" + s, () -> {
                    SplittableRandom r = new SplittableRandom(100 + id);
                    while (crew.going()) {
                        randomScan(map, r, n);
                        scans.incrementAndGet();
                    }
                });
            }
            crew.run(PHASE_NANOS);
            assertTrue(scans.get() > 0);

            // quiescent: the map is exactly the model
            TreeSet<Long> expected = new TreeSet<>();
            for (long k = 0; k < n; k++) {
                if (k % 4 == 0 || (k % 4 == 2 && present[(int) (k / 4) % 2][(int) k])) expected.add(k);
            }
            List<Long> asc = take(map.keySet(), SCAN_LIMIT);
            assertEquals(new ArrayList<>(expected), asc);
            assertEquals(expected.size(), map.size());
            assertEquals(asc, reversed(take(map.descendingKeySet(), SCAN_LIMIT)));
            assertEquals(asc, keys(map.zc().keySet()));
            assertEquals(asc, reversed(keys(map.zc().descendingMap().keySet())));
            SplittableRandom r = new SplittableRandom(7);
            for (int i = 0; i < 200; i++) {
                long lo = r.nextInt(n + 20) - 10, hi = lo + 1 + r.nextInt(n / 4);
                boolean li = r.nextBoolean(), hiI = r.nextBoolean();
                List<Long> want = new ArrayList<>(expected.subSet(lo, li, hi, hiI));
                assertEquals(want, take(map.subMap(lo, li, hi, hiI).keySet(), SCAN_LIMIT), "subMap " + lo + ".." + hi);
                assertEquals(want, reversed(take(map.subMap(lo, li, hi, hiI).descendingKeySet(), SCAN_LIMIT)));
                assertEquals(want, reversed(take(map.descendingMap().subMap(hi, hiI, lo, li).keySet(), SCAN_LIMIT)));
                assertEquals(want, keys(map.zc().subMap(lo, li, hi, hiI).keySet()));
                assertEquals(want, reversed(keys(map.zc().subMap(lo, li, hi, hiI).descendingMap().keySet())));
                assertEquals(want.size(), map.subMap(lo, li, hi, hiI).size());
            }
            for (Map.Entry<Long, Long> e : take(map.entrySet(), SCAN_LIMIT)) assertEquals((long) e.getKey(), keyOf(e.getValue()));
        }
    }

    /**
     * Inserts and removes the churn keys 4i+2 with (i % 2 == owner) through every update method,
     * checking each result exactly against the owner's model.
     */
    private static void churnOwned(Crew crew, OakMap<Long, Long> map, int owner, int n, boolean[] present) {
        SplittableRandom r = new SplittableRandom(owner);
        long seq = 0;
        while (crew.going()) {
            long k = 4L * (2L * r.nextInt(n / 8) + owner) + 2;
            int i = (int) k;
            long v = enc(k, ++seq);
            if (present[i]) {
                switch (r.nextInt(5)) {
                    case 0 -> {
                        Long old = map.remove(k);
                        assertNotNull(old, "remove of present key " + k);
                        assertEquals(k, keyOf(old));
                    }
                    case 1 -> assertTrue(map.zc().remove(k), "zc remove of present key " + k);
                    case 2 -> assertTrue(map.remove(k, map.get(k)), "remove(k, v) of present key " + k);
                    case 3 -> assertTrue(map.keySet().remove(k), "keySet().remove of present key " + k);
                    default -> {
                        Map.Entry<Long, Long> e = map.subMap(k, true, k, true).pollFirstEntry();
                        assertNotNull(e, "pollFirstEntry of [k, k], present key " + k);
                        assertEquals(k, (long) e.getKey());
                    }
                }
                present[i] = false;
            } else {
                switch (r.nextInt(5)) {
                    case 0 -> assertNull(map.put(k, v), "put of absent key " + k);
                    case 1 -> assertNull(map.putIfAbsent(k, v), "putIfAbsent of absent key " + k);
                    case 2 -> assertTrue(map.zc().putIfAbsent(k, v), "zc putIfAbsent of absent key " + k);
                    case 3 -> assertTrue(map.zc().putIfAbsentComputeIfPresent(k, v, w -> {
                        throw new AssertionError("computed on absent key " + k);
                    }), "zc putIfAbsentComputeIfPresent of absent key " + k);
                    default -> map.zc().put(k, v);
                }
                present[i] = true;
            }
        }
    }

    /** One scan of a random kind and range, checked. */
    private static void randomScan(OakMap<Long, Long> map, SplittableRandom r, int n) {
        long lo = r.nextInt(n + 20) - 10, hi = lo + 1 + r.nextInt(n / 3);
        boolean li = r.nextBoolean(), hiI = r.nextBoolean();
        int kind = r.nextInt(16);
        // bounds as seen by the scan; null = unbounded
        Long from = lo, to = hi;
        boolean desc;
        List<Long> got;
        switch (kind) {
            case 0 -> { from = null; to = null; desc = false; got = take(map.keySet(), 2 * n); }
            case 1 -> { from = null; to = null; desc = true; got = take(map.descendingKeySet(), 2 * n); }
            case 2 -> { from = null; to = null; desc = false; got = keys(map.zc().keySet()); }
            case 3 -> { from = null; to = null; desc = true; got = keys(map.zc().descendingMap().keySet()); }
            case 4 -> { desc = false; got = take(map.subMap(lo, li, hi, hiI).keySet(), 2 * n); }
            case 5 -> { desc = true; got = take(map.subMap(lo, li, hi, hiI).descendingKeySet(), 2 * n); }
            case 6 -> { desc = true; got = take(map.descendingMap().subMap(hi, hiI, lo, li).keySet(), 2 * n); }
            case 7 -> { desc = false; got = keys(map.zc().subMap(lo, li, hi, hiI).keySet()); }
            case 8 -> { desc = true; got = keys(map.zc().subMap(lo, li, hi, hiI).descendingMap().keySet()); }
            case 9 -> { from = null; desc = false; got = take(map.headMap(hi, hiI).keySet(), 2 * n); }
            case 10 -> { to = null; desc = true; got = take(map.tailMap(lo, li).descendingMap().keySet(), 2 * n); }
            case 11 -> { from = null; to = null; desc = false; got = entryKeys(map.entrySet()); }
            case 12 -> { desc = false; got = zcEntryKeys(map.zc().subMap(lo, li, hi, hiI).entrySet(), false); }
            case 13 -> { to = null; desc = false; got = keys(map.zc().tailMap(lo, li).keyStreamSet()); }
            case 14 -> { from = null; to = null; desc = true; got = entryKeys(map.descendingMap().entrySet()); }
            default -> { desc = true; got = take(map.navigableKeySet().subSet(lo, li, hi, hiI).descendingSet(), 2 * n); }
        }
        String what = "scan kind " + kind + " [" + from + (li ? "]" : ")") + ".." + to + (hiI ? "]" : ")")
                + (desc ? " descending" : "");
        long prev = 0;
        boolean first = true;
        for (long k : got) {
            if (!first && (desc ? k >= prev : k <= prev)) {
                fail(what + ": not strictly " + (desc ? "descending" : "ascending") + " at " + prev + ", " + k);
            }
            if (k % 2 != 0) fail(what + ": returned key " + k + ", which was never inserted");
            if (from != null && (k < from || (k == from && !li))) fail(what + ": key " + k + " below the range");
            if (to != null && (k > to || (k == to && !hiI))) fail(what + ": key " + k + " above the range");
            prev = k;
            first = false;
        }
        List<Long> sorted = desc ? reversed(got) : got;
        long start = from == null ? 0 : from, end = to == null ? n - 1 : Math.min(to, n - 1);
        for (long k = Math.max(0, (start + 3) / 4 * 4); k <= end; k += 4) {
            if (k == start && from != null && !li) continue;
            if (k == end && to != null && k == to && !hiI) continue;
            if (Collections.binarySearch(sorted, k) < 0) fail(what + ": missed stable key " + k);
        }
    }

    /**
     * The keys of zero-copy key buffers. A key removed (and its slice reclaimed) between the scan
     * step and the read throws {@link RemovedValueException}; such a key is skipped (a stable key
     * skipped this way is then reported as missed).
     */
    private static List<Long> keys(Iterable<OakReadBuffer> buffers) {
        List<Long> out = new ArrayList<>();
        for (OakReadBuffer b : buffers) {
            if (out.size() > SCAN_LIMIT) fail("a scan returned more than " + SCAN_LIMIT + " keys (cycle?)");
            try {
                out.add(b.getLong(0));
            } catch (RemovedValueException removed) {
                // a churn key removed meanwhile
            }
        }
        return out;
    }

    private static List<Long> entryKeys(Iterable<Map.Entry<Long, Long>> entries) {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<Long, Long> e : entries) {
            if (out.size() > SCAN_LIMIT) fail("a scan returned more than " + SCAN_LIMIT + " entries (cycle?)");
            assertEquals((long) e.getKey(), keyOf(e.getValue()), "entry value names another key");
            out.add(e.getKey());
        }
        return out;
    }

    /** Keys of zero-copy entries, checking the values; a removed value is allowed only for churn keys. */
    private static List<Long> zcEntryKeys(Iterable<Map.Entry<OakReadBuffer, OakReadBuffer>> entries, boolean allRemovable) {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<OakReadBuffer, OakReadBuffer> e : entries) {
            if (out.size() > SCAN_LIMIT) fail("a scan returned more than " + SCAN_LIMIT + " entries (cycle?)");
            long k;
            try {
                k = e.getKey().getLong(0);
            } catch (RemovedValueException removed) {
                continue; // a churn key removed meanwhile
            }
            try {
                assertEquals(k, keyOf(e.getValue().getLong(0)), "zc entry value names another key");
            } catch (RemovedValueException removed) {
                if (!allRemovable && k % 4 == 0) throw new AssertionError("stable key " + k + " read as removed", removed);
            }
            out.add(k);
        }
        return out;
    }

    /**
     * The elements of a scan, failing if there are more than {@code limit} (a scan that does not
     * end: a cycle in the map's lists) instead of filling the heap.
     */
    static <T> List<T> take(Iterable<T> scan, int limit) {
        List<T> out = new ArrayList<>();
        for (T t : scan) {
            if (out.size() == limit) fail("a scan returned more than " + limit + " elements (cycle?), first: " + out.subList(0, 20));
            out.add(t);
        }
        return out;
    }

    static <T> List<T> reversed(List<T> list) {
        List<T> copy = new ArrayList<>(list);
        Collections.reverse(copy);
        return copy;
    }

    // =============================================================================================
    // compute: exactly once, never lost
    // =============================================================================================

    /** Increments on three hot keys by two workers while a churner rebalances around them. */
    @Test
    void computesAreNeverLostNorRunTwice() throws Exception {
        computeScenario(platform("compute"), 2, 150_000 * SCALE, 1, 1);
    }

    /**
     * The same on virtual threads: more threads than carriers, parking on the rebalance lock and
     * yielding in the value locks' spins (the test's own loops yield after each step).
     */
    @Test
    void computesAreNeverLostNorRunTwiceOnVirtualThreads() throws Exception {
        computeScenario(Thread.ofVirtual().name("oak-vt-", 0).factory(), 6, 8_000 * SCALE, 2, 2);
    }

    private static final long[] HOT = {64, 128, 192};

    /**
     * {@code workers} threads each run {@code ops} increments on the hot keys, through zc
     * computeIfPresent, legacy merge / computeIfPresent / compute and zc
     * putIfAbsentComputeIfPresent (on a present key: a compute); churners insert and remove the
     * other keys of 0..255 (so the hot keys' chunks are rebalanced again and again) and scanners
     * read the hot values in scans. Every function counts its runs: the runs must equal the
     * calls (no function ran twice) and each hot value must equal its increments (none lost).
     */
    private static void computeScenario(ThreadFactory factory, int workers, int ops, int churners, int scanners)
            throws Exception {
        try (OakMap<Long, Long> map = newMap()) {
            for (long k : HOT) map.put(k, 0L);
            AtomicLongArray calls = new AtomicLongArray(HOT.length);
            AtomicLong runs = new AtomicLong();
            AtomicInteger working = new AtomicInteger(workers);
            Crew crew = new Crew(factory);
            for (int w = 0; w < workers; w++) {
                int id = w;
                crew.add("worker-" + w, () -> {
                    try {
                        SplittableRandom r = new SplittableRandom(id);
                        long[] mine = new long[HOT.length];
                        Consumer<OakWriteBuffer> increment = b -> {
                            runs.incrementAndGet();
                            b.putLong(0, b.getLong(0) + 1);
                        };
                        for (int i = 0; i < ops && !crew.failed(); i++) {
                            int h = r.nextInt(HOT.length);
                            long k = HOT[h];
                            switch (r.nextInt(5)) {
                                case 0 -> assertTrue(map.zc().computeIfPresent(k, increment), "zc computeIfPresent on hot key");
                                case 1 -> assertNotNull(map.merge(k, 1L, (a, b) -> {
                                    runs.incrementAndGet();
                                    return Long.sum(a, b);
                                }));
                                case 2 -> assertNotNull(map.computeIfPresent(k, (kk, v) -> {
                                    runs.incrementAndGet();
                                    return v + 1;
                                }));
                                case 3 -> assertNotNull(map.compute(k, (kk, v) -> {
                                    runs.incrementAndGet();
                                    return v == null ? -1_000_000 : v + 1;
                                }));
                                default -> assertFalse(map.zc().putIfAbsentComputeIfPresent(k, -1_000_000L, increment),
                                        "putIfAbsentComputeIfPresent inserted a present hot key");
                            }
                            mine[h]++;
                            if ((i & 31) == 31) letOthersRun();
                        }
                        for (int h = 0; h < HOT.length; h++) calls.addAndGet(h, mine[h]);
                    } finally {
                        working.decrementAndGet();
                    }
                });
            }
            for (int c = 0; c < churners; c++) {
                int id = c;
                crew.add("churner-" + c, () -> {
                    SplittableRandom r = new SplittableRandom(50 + id);
                    while (working.get() > 0 && !crew.failed()) {
                        churnOther(map, r, 256);
                        letOthersRun();
                    }
                });
            }
            for (int s = 0; s < scanners; s++) {
                crew.add("scanner-" + s, () -> {
                    long[] last = new long[HOT.length];
                    while (working.get() > 0 && !crew.failed()) {
                        boolean desc = (last[0] & 1) == 0;
                        Iterable<Map.Entry<Long, Long>> scan = desc ? map.descendingMap().entrySet() : map.entrySet();
                        int seen = 0;
                        int entries = 0;
                        for (Map.Entry<Long, Long> e : scan) {
                            if (++entries > 1000) fail("a scan of at most 256 keys returned more than 1000 entries (cycle?)");
                            for (int h = 0; h < HOT.length; h++) {
                                if (e.getKey() == HOT[h]) {
                                    long v = e.getValue();
                                    if (v < last[h]) fail("hot key " + HOT[h] + " went back from " + last[h] + " to " + v);
                                    last[h] = v;
                                    seen++;
                                }
                            }
                        }
                        assertEquals(HOT.length, seen, "a scan missed a hot key (never removed)");
                        letOthersRun();
                    }
                });
            }
            crew.run(COUNTED_NANOS);
            long total = 0;
            for (int h = 0; h < HOT.length; h++) {
                assertEquals(calls.get(h), (long) map.get(HOT[h]), "increments of hot key " + HOT[h]);
                assertEquals(calls.get(h), map.zc().get(HOT[h]).getLong(0));
                total += calls.get(h);
            }
            assertEquals((long) workers * ops, total);
            assertEquals(total, runs.get(), "compute functions run (must equal the calls: each exactly once)");
        }
    }

    /** A random update of a non-hot key of 0..keys-1 (no exact checks: several churners share them). */
    private static void churnOther(OakMap<Long, Long> map, SplittableRandom r, int keys) {
        long k = r.nextInt(keys);
        for (long h : HOT) if (k == h) return;
        long v = enc(k, r.nextInt(1 << 20));
        switch (r.nextInt(6)) {
            case 0 -> map.put(k, v);
            case 1 -> map.putIfAbsent(k, v);
            case 2 -> map.zc().put(k, v);
            case 3 -> map.remove(k);
            case 4 -> map.zc().remove(k);
            default -> {
                Long old = map.remove(k);
                if (old != null && keyOf(old) != k) fail("removed value " + old + " names another key than " + k);
            }
        }
    }

    // =============================================================================================
    // compute with growth, read concurrently through buffers
    // =============================================================================================

    private static final int GROW_STEP = 1000, GROW_CAP = 8008;

    /**
     * Two writers increment three hot keys' counters in place; every 100th increment of a key
     * resizes its value (grows by 1000 bytes up to about 8 KB, then shrinks back to 8), so
     * values move to new slices again and again; the counter is kept at offset 0 and mirrored in
     * the last 8 bytes. A reader reads through buffers kept from the start (which must follow the
     * moves), fresh zc buffers and legacy get: the counter never goes back, head and tail always
     * agree (one version), and no exception is thrown (the keys are never removed). A churner
     * rebalances the chunks meanwhile. At the end each counter equals its increments and the
     * value's size matches its number of resizes.
     */
    @Test
    void computeWithGrowthReadConcurrentlyThroughBuffers() throws Exception {
        try (OakMap<Long, Long> map = newMap()) {
            for (long k : HOT) map.put(k, 0L);
            AtomicLongArray done = new AtomicLongArray(HOT.length);
            Consumer<OakWriteBuffer> grow = w -> {
                long c = w.getLong(0) + 1;
                if (c % 100 == 0) w.resize(w.size() + GROW_STEP > GROW_CAP ? 8 : w.size() + GROW_STEP);
                w.putLong(0, c);
                w.putLong(w.size() - 8, c);
            };
            Crew crew = new Crew(platform("grow"));
            for (int w = 0; w < 2; w++) {
                int id = w;
                crew.add("writer-" + w, () -> {
                    SplittableRandom r = new SplittableRandom(id);
                    long[] mine = new long[HOT.length];
                    while (crew.going()) {
                        int h = r.nextInt(HOT.length);
                        if (r.nextInt(4) == 0) {
                            assertFalse(map.zc().putIfAbsentComputeIfPresent(HOT[h], 0L, grow));
                        } else {
                            assertTrue(map.zc().computeIfPresent(HOT[h], grow));
                        }
                        mine[h]++;
                    }
                    for (int h = 0; h < HOT.length; h++) done.addAndGet(h, mine[h]);
                });
            }
            crew.add("churner", () -> {
                SplittableRandom r = new SplittableRandom(9);
                while (crew.going()) churnOther(map, r, 256);
            });
            crew.add("reader", () -> {
                SplittableRandom r = new SplittableRandom(10);
                OakReadBuffer[] kept = new OakReadBuffer[HOT.length];
                for (int h = 0; h < HOT.length; h++) kept[h] = map.zc().get(HOT[h]);
                long[] last = new long[HOT.length];
                while (crew.going()) {
                    int h = r.nextInt(HOT.length);
                    long c;
                    switch (r.nextInt(3)) {
                        case 0 -> c = headAndTail(kept[h], HOT[h]);
                        case 1 -> c = headAndTail(map.zc().get(HOT[h]), HOT[h]);
                        default -> c = map.get(HOT[h]);
                    }
                    if (c < last[h]) fail("counter of " + HOT[h] + " went back from " + last[h] + " to " + c);
                    last[h] = c;
                }
            });
            crew.run(PHASE_NANOS);
            for (int h = 0; h < HOT.length; h++) {
                long c = done.get(h);
                OakReadBuffer b = map.zc().get(HOT[h]);
                assertEquals(c, b.getLong(0), "increments of " + HOT[h]);
                assertEquals(8 + GROW_STEP * ((c / 100) % 9), b.size(), "size of " + HOT[h] + " after " + c + " increments");
                assertEquals(c, b.getLong(b.size() - 8));
                assertEquals(c, (long) map.get(HOT[h]));
            }
        }
    }

    /** The counter at the head of the value, checked against its mirror at the tail (one read). */
    private static long headAndTail(OakReadBuffer b, long key) {
        assertNotNull(b, "hot key " + key + " absent");
        long[] ht = b.transform(s -> new long[] {
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, s.byteSize() - 8),
                s.byteSize()});
        if (ht[0] != ht[1]) fail("torn value of " + key + ": head " + ht[0] + ", tail " + ht[1] + ", size " + ht[2]);
        return ht[0];
    }

    // =============================================================================================
    // putIfAbsent and remove races
    // =============================================================================================

    private static final int RACERS = 3, ROUND_KEYS = 32;
    /** The churner updates odd keys of the current round's span and of the spans just before it. */
    private static final int CHURN_SPANS = 8;

    /** One racer's work in a round: the keys of round {@code round} (base key {@code base}). */
    interface RoundBody {
        void run(int racer, long base) throws Exception;
    }

    /**
     * Runs rounds of races: {@link #RACERS} threads run {@code body} on the round's 32 even keys
     * (base + 2i), then meet at a barrier whose action ({@code check}, on one thread) checks the
     * round and prepares the next; a churner updates odd keys of the round's span and of the
     * {@link #CHURN_SPANS} - 1 before it meanwhile, and the action removes the odd keys of the
     * spans the churner no longer reaches (the map stays small in long runs). Every
     * racer takes the same decision to go on (made by the action). Returns the rounds run.
     */
    private static long races(OakMap<Long, Long> map, String name, RoundBody body, RoundBody check) throws Exception {
        AtomicLong round = new AtomicLong();
        Crew crew = new Crew(platform(name));
        boolean[] more = {true};
        CyclicBarrier barrier = new CyclicBarrier(RACERS, () -> {
            try {
                long done = round.get();
                check.run(-1, done * 2 * ROUND_KEYS);
                // the churner no longer reaches the odd keys of span done - CHURN_SPANS - 2 (see
                // below): remove them, so that the map stays small however long the phase runs
                long old = done - CHURN_SPANS - 2;
                if (old >= 0) for (int i = 0; i < ROUND_KEYS; i++) map.remove(old * 2 * ROUND_KEYS + 2L * i + 1);
                round.incrementAndGet();
                more[0] = crew.going();
            } catch (Throwable t) {
                crew.fail(t);
                more[0] = false;
            }
        });
        for (int t = 0; t < RACERS; t++) {
            int id = t;
            crew.add("racer-" + t, () -> {
                do {
                    try {
                        body.run(id, round.get() * 2 * ROUND_KEYS);
                    } catch (Throwable e) {
                        crew.fail(new AssertionError("racer-" + id + ": " + e, e));
                        barrier.reset(); // releases the racers waiting for this one
                        return;
                    }
                    try {
                        barrier.await(1, TimeUnit.MINUTES);
                    } catch (BrokenBarrierException e) {
                        if (crew.failed()) return; // another racer failed and broke it
                        throw e;
                    }
                } while (more[0]);
            });
        }
        crew.add("churner", () -> {
            SplittableRandom r = new SplittableRandom(3);
            while (crew.going()) {
                long now = round.get(), first = Math.max(0, now - CHURN_SPANS + 1); // the last spans only
                long k = first * 2 * ROUND_KEYS + 2L * r.nextInt((int) ((now + 1 - first) * ROUND_KEYS)) + 1;
                if (r.nextBoolean()) map.put(k, enc(k, 1));
                else map.remove(k);
            }
        });
        crew.run(PHASE_NANOS);
        return round.get();
    }

    /** The i-th key a racer handles: a different order per racer. */
    private static int order(int racer, int j) {
        return (j * (2 * racer + 1) + 7 * racer) % ROUND_KEYS;
    }

    /**
     * Rounds of 32 fresh keys, three racers each putIfAbsent every key in a different order: the
     * first 16 keys through legacy or zc putIfAbsent (values name the racer), the other 16
     * through zc putIfAbsentComputeIfPresent (insert 1, else increment). Exactly one call per key
     * inserts; the value is the winner's, and the counters equal the number of racers.
     */
    @Test
    void putIfAbsentRacesHaveExactlyOneWinner() throws Exception {
        try (OakMap<Long, Long> map = newMap()) {
            AtomicIntegerArray wins = new AtomicIntegerArray(ROUND_KEYS);
            AtomicIntegerArray winner = new AtomicIntegerArray(ROUND_KEYS);
            Consumer<OakWriteBuffer> increment = b -> b.putLong(0, b.getLong(0) + 1);
            long rounds = races(map, "pia", (racer, base) -> {
                for (int j = 0; j < ROUND_KEYS; j++) {
                    int i = order(racer, j);
                    long k = base + 2L * i;
                    boolean won;
                    if (i < ROUND_KEYS / 2) {
                        long v = enc(k, racer);
                        if (((i + racer) & 1) == 0) {
                            Long old = map.putIfAbsent(k, v);
                            won = old == null;
                            if (!won && keyOf(old) != k) fail("putIfAbsent(" + k + ") returned " + old);
                        } else {
                            won = map.zc().putIfAbsent(k, v);
                        }
                        if (won) winner.set(i, racer);
                    } else {
                        won = map.zc().putIfAbsentComputeIfPresent(k, 1L, increment);
                    }
                    if (won) wins.incrementAndGet(i);
                }
            }, (none, base) -> {
                for (int i = 0; i < ROUND_KEYS; i++) {
                    long k = base + 2L * i;
                    assertEquals(1, wins.get(i), "inserts of key " + k);
                    if (i < ROUND_KEYS / 2) {
                        assertEquals(enc(k, winner.get(i)), (long) map.get(k), "value of " + k + " is not the winner's");
                    } else {
                        assertEquals(RACERS, (long) map.get(k), "counter of " + k);
                    }
                    wins.set(i, 0);
                    assertNotNull(map.remove(k)); // keeps the map small over long runs
                }
            });
            assertTrue(rounds > 0);
        }
    }

    /**
     * Rounds of 32 keys inserted before the round; three racers remove every key, in different
     * orders, through legacy remove (non-null wins, and returns the inserted value), zc remove,
     * remove(key, value) and pollFirstEntry of the one-key sub-map. Exactly one removal per key
     * wins, and afterwards no key of the round is left.
     */
    @Test
    void removeRacesHaveExactlyOneWinner() throws Exception {
        try (OakMap<Long, Long> map = newMap()) {
            AtomicIntegerArray wins = new AtomicIntegerArray(ROUND_KEYS);
            for (int i = 0; i < ROUND_KEYS; i++) map.put(2L * i, enc(2L * i, 5));
            long rounds = races(map, "remove", (racer, base) -> {
                for (int j = 0; j < ROUND_KEYS; j++) {
                    int i = order(racer, j);
                    long k = base + 2L * i;
                    long v = enc(k, 5);
                    boolean won = switch ((i + racer) % 4) {
                        case 0 -> {
                            Long old = map.remove(k);
                            if (old != null) assertEquals(v, (long) old, "remove(" + k + ") returned a value never put");
                            yield old != null;
                        }
                        case 1 -> map.zc().remove(k);
                        case 2 -> map.remove(k, v);
                        default -> {
                            Map.Entry<Long, Long> e = map.subMap(k, true, k, true).pollFirstEntry();
                            if (e != null) {
                                assertEquals(k, (long) e.getKey());
                                assertEquals(v, (long) e.getValue());
                            }
                            yield e != null;
                        }
                    };
                    if (won) wins.incrementAndGet(i);
                }
            }, (none, base) -> {
                for (int i = 0; i < ROUND_KEYS; i++) {
                    long k = base + 2L * i;
                    assertEquals(1, wins.get(i), "successful removes of key " + k);
                    assertNull(map.get(k));
                    assertFalse(map.containsKey(k));
                    assertNull(map.zc().get(k));
                    wins.set(i, 0);
                }
                for (long k : take(map.subMap(base, true, base + 2L * ROUND_KEYS, false).keySet(), SCAN_LIMIT)) {
                    if (k % 2 == 0) fail("removed key " + k + " still scanned");
                }
                long next = base + 2L * ROUND_KEYS;
                for (int i = 0; i < ROUND_KEYS; i++) assertNull(map.put(next + 2L * i, enc(next + 2L * i, 5)));
            });
            assertTrue(rounds > 0);
        }
    }

    /**
     * Two pollers take entries from both ends (pollFirstEntry, pollLastEntry, also of sub-maps and
     * of the descending view) while a writer inserts fresh keys and a third thread moves values
     * (growing computes) under them. Every key inserted is taken exactly once, with a value put
     * for it; none is left afterwards.
     */
    @Test
    void pollsFromBothEndsTakeEveryEntryExactlyOnce() throws Exception {
        try (OakMap<Long, byte[]> map = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(4).build()) {
            AtomicLong inserted = new AtomicLong();
            ConcurrentHashMap<Long, String> taken = new ConcurrentHashMap<>();
            Crew crew = new Crew(platform("poll"));
            crew.add("writer", () -> {
                for (long k = 0; crew.going(); k++) {
                    assertNull(map.put(k, pollValue(k, 8)));
                    inserted.set(k + 1);
                }
            });
            crew.add("mover", () -> {
                SplittableRandom r = new SplittableRandom(7);
                while (crew.going()) {
                    long k = r.nextLong(inserted.get() + 1);
                    map.computeIfPresent(k, (kk, v) -> pollValue(kk, v.length == 8 ? 300 : 8));
                }
            });
            for (int p = 0; p < 2; p++) {
                int poller = p;
                crew.add("poller-" + p, () -> {
                    SplittableRandom r = new SplittableRandom(poller);
                    while (crew.going()) {
                        Map.Entry<Long, byte[]> e = switch (r.nextInt(4)) {
                            case 0 -> map.pollFirstEntry();
                            case 1 -> map.pollLastEntry();
                            case 2 -> map.descendingMap().pollFirstEntry();
                            default -> map.tailMap(r.nextLong(inserted.get() + 1)).pollFirstEntry();
                        };
                        if (e == null) continue;
                        assertEquals(e.getKey().byteValue(), e.getValue()[0], "a value put for key " + e.getKey());
                        String before = taken.put(e.getKey(), "poller-" + poller);
                        if (before != null) fail("key " + e.getKey() + " taken twice, by " + before + " and poller-" + poller);
                    }
                });
            }
            crew.run(PHASE_NANOS);
            for (Map.Entry<Long, byte[]> e; (e = map.pollFirstEntry()) != null; ) {
                if (taken.put(e.getKey(), "drain") != null) fail("key " + e.getKey() + " left after it was taken");
            }
            assertEquals(inserted.get(), taken.size(), "keys taken of those inserted");
            assertTrue(map.isEmpty());
            assertEquals(0, map.size());
        }
    }

    private static byte[] pollValue(long k, int size) {
        byte[] v = new byte[size];
        Arrays.fill(v, (byte) k);
        return v;
    }

    // =============================================================================================
    // torn reads
    // =============================================================================================

    /** 64-byte values: eight longs. */
    static final OakSerializer<long[]> EIGHT_LONGS = new OakSerializer<>() {
        @Override
        public void serialize(long[] v, MemorySegment target) {
            for (int i = 0; i < v.length; i++) target.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i, v[i]);
        }

        @Override
        public long[] deserialize(MemorySegment source) {
            return readLongs(source);
        }

        @Override
        public int sizeOf(long[] v) {
            return 8 * v.length;
        }
    };

    static long[] readLongs(MemorySegment s) {
        long[] out = new long[(int) (s.byteSize() / 8)];
        for (int i = 0; i < out.length; i++) out[i] = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i);
        return out;
    }

    static long[] eight(long v) {
        long[] a = new long[8];
        java.util.Arrays.fill(a, v);
        return a;
    }

    /** Recycled keys of {@link #readersNeverSeeTornOrForeignValues}. */
    static final int POOL = 8;

    /** A few microseconds of spinning: a window in which a value slice can be freed and reused. */
    static void dawdle() {
        for (int i = 0; i < 300; i++) Thread.onSpinWait();
    }

    /** {@link #readLongs} after {@link #dawdle}: the reader has the lock word, not yet the value. */
    static long[] slowReadLongs(MemorySegment s) {
        dawdle();
        return readLongs(s);
    }

    static void assertUniform(long[] a, String what) {
        if (a == null) return;
        if (a.length != 8) fail(what + ": " + a.length + " longs instead of 8");
        for (int i = 1; i < 8; i++) {
            if (a[i] != a[0]) fail(what + ": torn value " + java.util.Arrays.toString(a));
        }
    }

    /** A value word that names its key: the key in the top 16 bits, {@code low} below. */
    static long owned(long key, long low) {
        return key << 48 | low;
    }

    /** {@link #assertUniform}, and the value names {@code key}: not a value of another key. */
    static void assertOwned(long[] a, long key, String what) {
        assertUniform(a, what);
        if (a != null && a[0] >>> 48 != key) {
            fail(what + ": a value of key " + (a[0] >>> 48) + " (" + Long.toHexString(a[0]) + ") read for key " + key);
        }
    }

    /**
     * Values of 64 bytes whose 8 longs are always equal and name their key ({@link #owned}).
     * Writers overwrite them in place through zc computeIfPresent (writing the longs one by one,
     * in either order), legacy compute, legacy and zc put, and sometimes remove and re-insert them,
     * while keys in between churn. Readers read through zc get().transform, buffers kept from
     * earlier, legacy get and entry scans (legacy and zero-copy): every value read is uniform and
     * of the key it was read for. Old values returned by updates are too.
     *
     * <p>Foreign values: a reader's lock-word check alone cannot tell a value slice that was
     * removed, freed and reallocated for another key's new value (the new lock word can equal
     * the one the reader saw: same length, sequence 0), only Nova's header check can. So that
     * such reuse happens inside reads, the map has a Nova of its own that frees at every delete
     * (batch 1), a recycler removes and inserts keys of a small pool of their own (fresh values
     * only, never updated in place, all of one size: the freed block is the next one the
     * recycler's allocator hands out), and readers read those keys through zc gets and kept
     * buffers with a reader that waits a few microseconds before its loads (transform) or
     * between the get and the load (getLong), so that a reuse falls inside the read.
     */
    @Test
    void readersNeverSeeTornOrForeignValues() throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).jmx(false).name("oak-torn").build();
             OakMap<Long, long[]> map = OakMap.builder(OakCodecs.LONG, EIGHT_LONGS, OakCodecs.LONG)
                     .nova(new Nova(alloc, 1)).maxChunkEntries(4).build()) {
            final int hot = 16, span = 10; // hot keys 0, 10, .., 150; the others churn
            final long firstRecycled = 1_000; // recycled keys 1000 .. 1000 + POOL - 1
            for (int h = 0; h < hot; h++) map.put((long) h * span, eight(owned((long) h * span, 0)));
            Crew crew = new Crew(platform("torn"));
            for (int w = 0; w < 2; w++) {
                int id = w;
                crew.add("writer-" + w, () -> {
                    SplittableRandom r = new SplittableRandom(id);
                    long seq = 0;
                    while (crew.going()) {
                        long k = (long) r.nextInt(hot) * span;
                        long v = owned(k, ((long) id << 40) | ++seq);
                        switch (r.nextInt(8)) {
                            case 0, 1 -> map.zc().computeIfPresent(k, b -> {
                                if (b.size() != 64) throw new AssertionError("size " + b.size());
                                for (int i = 0; i < 8; i++) b.putLong(8 * i, v);
                            });
                            case 2 -> map.zc().computeIfPresent(k, b -> {
                                for (int i = 7; i >= 0; i--) b.putLong(8 * i, v);
                            });
                            case 3 -> assertOwned(map.put(k, eight(v)), k, "old value of put");
                            case 4 -> map.zc().put(k, eight(v));
                            case 5 -> assertOwned(map.compute(k, (kk, old) -> {
                                assertOwned(old, k, "compute's input");
                                return eight(v);
                            }), k, "compute's result");
                            case 6 -> {
                                if (r.nextInt(8) == 0) assertOwned(map.remove(k), k, "removed value");
                                else map.zc().putIfAbsent(k, eight(v));
                            }
                            default -> {
                                long o = (long) r.nextInt(hot * span);
                                if (o % span == 0) break;
                                if (r.nextBoolean()) map.put(o, eight(owned(o, 0)));
                                else map.remove(o);
                            }
                        }
                    }
                });
            }
            crew.add("recycler", () -> {
                SplittableRandom r = new SplittableRandom(7);
                long seq = 0;
                while (crew.going()) {
                    long k = firstRecycled + r.nextInt(POOL);
                    if (r.nextBoolean()) assertOwned(map.remove(k), k, "recycled key's removed value");
                    else map.zc().putIfAbsent(k, eight(owned(k, ++seq))); // a fresh slice, never updated
                }
            });
            AtomicLong reads = new AtomicLong();
            AtomicLong slowReads = new AtomicLong();
            for (int s = 0; s < 2; s++) {
                int id = s;
                crew.add("reader-" + s, () -> {
                    SplittableRandom r = new SplittableRandom(20 + id);
                    OakReadBuffer[] kept = new OakReadBuffer[hot];
                    OakReadBuffer[] recycled = new OakReadBuffer[POOL];
                    while (crew.going()) {
                        int h = r.nextInt(hot);
                        long k = (long) h * span;
                        if (r.nextBoolean()) { // a recycled key, read slowly
                            int i = r.nextInt(POOL);
                            long rk = firstRecycled + i;
                            OakReadBuffer b = r.nextInt(4) == 0 ? recycled[i] : map.zc().get(rk);
                            if (b == null) continue;
                            recycled[i] = b;
                            try {
                                if (r.nextBoolean()) {
                                    assertOwned(b.transform(OakMapStressTest::slowReadLongs), rk, "slow read of " + rk);
                                } else {
                                    dawdle();
                                    long w = b.getLong(8 * r.nextInt(8));
                                    if (w >>> 48 != rk) fail("a word of key " + (w >>> 48) + " read for key " + rk);
                                }
                                slowReads.incrementAndGet();
                            } catch (RemovedValueException removed) {
                                recycled[i] = null; // removed before or during the read: allowed
                            }
                            continue;
                        }
                        switch (r.nextInt(6)) {
                            case 0, 1 -> {
                                OakReadBuffer b = map.zc().get(k);
                                if (b != null) {
                                    kept[h] = b;
                                    try {
                                        assertOwned(b.transform(OakMapStressTest::readLongs), k, "zc get of " + k);
                                    } catch (RemovedValueException removed) {
                                        // removed between get and read: allowed
                                    }
                                }
                            }
                            case 2 -> {
                                OakReadBuffer b = kept[h];
                                if (b != null) {
                                    try {
                                        assertOwned(b.transform(OakMapStressTest::readLongs), k, "kept buffer of " + k);
                                    } catch (RemovedValueException removed) {
                                        kept[h] = null;
                                    }
                                }
                            }
                            case 3 -> assertOwned(map.get(k), k, "get of " + k);
                            case 4 -> {
                                for (Map.Entry<Long, long[]> e : take(map.entrySet(), SCAN_LIMIT)) {
                                    assertOwned(e.getValue(), e.getKey(), "legacy scan");
                                }
                            }
                            default -> {
                                for (Map.Entry<OakReadBuffer, OakReadBuffer> e : take(map.zc().descendingMap().entrySet(), SCAN_LIMIT)) {
                                    try {
                                        assertOwned(e.getValue().transform(OakMapStressTest::readLongs), e.getKey().getLong(0), "zc scan");
                                    } catch (RemovedValueException removed) {
                                        // allowed
                                    }
                                }
                            }
                        }
                        reads.incrementAndGet();
                    }
                });
            }
            crew.run(PHASE_NANOS);
            assertTrue(reads.get() > 0);
            assertTrue(slowReads.get() > 0);
            for (Map.Entry<Long, long[]> e : take(map.entrySet(), SCAN_LIMIT)) assertOwned(e.getValue(), e.getKey(), "final value");
        }
    }

    // =============================================================================================
    // reads: only values written for the key; exact when no write overlaps
    // =============================================================================================

    /**
     * Keys 0..511, each owned by one of two writers (by parity), which update it through every
     * update method and check each result exactly against their model. Around each operation the
     * owner publishes the key's state word ({@code seq << 2 | inProgress << 1 | present}; seq
     * grows with every operation) and the current value. Readers read the state word, the key
     * (get, zc get + getLong, containsKey, getOrDefault), and the state word again: if it did not
     * change and no operation was in progress, no write overlapped the read, which must then
     * return exactly the published state. Otherwise the value must name the key and be at least
     * as new as the one published before the read, and never older than what the same reader saw
     * earlier. ceilingEntry results must name their key and not lie below the probe.
     */
    @Test
    void readsReturnOnlyWrittenValuesAndExactWhenQuiet() throws Exception {
        readScenario(platform("read"), 2, 2, PHASE_NANOS);
    }

    private static void readScenario(ThreadFactory factory, int writers, int readers, long nanos) throws Exception {
        final int n = 512;
        try (OakMap<Long, Long> map = newMap()) {
            AtomicLongArray state = new AtomicLongArray(n);
            AtomicLongArray current = new AtomicLongArray(n);
            AtomicLong quietChecks = new AtomicLong(), ceilingBelow = new AtomicLong();
            java.util.concurrent.atomic.AtomicReference<String> ceilingExample = new java.util.concurrent.atomic.AtomicReference<>();
            Crew crew = new Crew(factory);
            for (int w = 0; w < writers; w++) {
                int id = w;
                crew.add("writer-" + w, () -> {
                    SplittableRandom r = new SplittableRandom(id);
                    long[] seq = new long[n];
                    boolean[] present = new boolean[n];
                    long[] value = new long[n];
                    while (crew.going()) {
                        int k = writers * r.nextInt(n / writers) + id;
                        long key = k, s = ++seq[k];
                        long v = enc(k, s);
                        boolean was = present[k];
                        Long expectOld = was ? value[k] : null;
                        state.set(k, (s << 2) | 2 | (was ? 1 : 0));
                        boolean now;
                        long nowValue = value[k];
                        switch (r.nextInt(9)) {
                            case 0 -> {
                                assertEquals(expectOld, map.put(key, v), "put's old value of " + k);
                                now = true;
                                nowValue = v;
                            }
                            case 1 -> {
                                assertEquals(expectOld, map.remove(key), "remove of " + k);
                                now = false;
                            }
                            case 2 -> {
                                assertEquals(expectOld, map.putIfAbsent(key, v), "putIfAbsent of " + k);
                                now = true;
                                if (!was) nowValue = v;
                            }
                            case 3 -> {
                                map.zc().put(key, v);
                                now = true;
                                nowValue = v;
                            }
                            case 4 -> {
                                assertEquals(was, map.zc().remove(key), "zc remove of " + k);
                                now = false;
                            }
                            case 5 -> {
                                assertEquals(was, map.zc().computeIfPresent(key, b -> b.putLong(0, v)),
                                        "zc computeIfPresent of " + k);
                                now = was;
                                if (was) nowValue = v;
                            }
                            case 6 -> {
                                assertEquals(v, (long) map.merge(key, v, (a, b) -> b), "merge of " + k);
                                now = true;
                                nowValue = v;
                            }
                            case 7 -> {
                                assertEquals(!was, map.zc().putIfAbsentComputeIfPresent(key, v, b -> b.putLong(0, v)),
                                        "putIfAbsentComputeIfPresent of " + k);
                                now = true;
                                nowValue = v;
                            }
                            default -> {
                                assertEquals(expectOld, map.replace(key, v), "replace of " + k);
                                now = was;
                                if (was) nowValue = v;
                            }
                        }
                        present[k] = now;
                        value[k] = nowValue;
                        current.set(k, now ? nowValue : 0);
                        state.set(k, (s << 2) | (now ? 1 : 0));
                        letOthersRun();
                    }
                });
            }
            for (int rd = 0; rd < readers; rd++) {
                int id = rd;
                crew.add("reader-" + rd, () -> {
                    SplittableRandom r = new SplittableRandom(30 + id);
                    long[] lastSeen = new long[n];
                    while (crew.going()) {
                        letOthersRun();
                        int k = r.nextInt(n);
                        long key = k;
                        int op = r.nextInt(5);
                        if (op == 4) {
                            Map.Entry<Long, Long> e = map.ceilingEntry(key);
                            if (e != null) {
                                // counted, not thrown, so that the other checks go on
                                if (e.getKey() < key && ceilingBelow.getAndIncrement() == 0) {
                                    ceilingExample.set("ceilingEntry(" + k + ") = " + e);
                                }
                                assertEquals((long) e.getKey(), keyOf(e.getValue()), "ceilingEntry's value names another key");
                            }
                            continue;
                        }
                        long s1 = state.get(k);
                        long before = current.get(k);
                        Long got; // null: absent
                        switch (op) {
                            case 0 -> got = map.get(key);
                            case 1 -> {
                                OakReadBuffer b = map.zc().get(key);
                                Long g;
                                try {
                                    g = b == null ? null : b.getLong(0);
                                } catch (RemovedValueException removed) {
                                    g = null;
                                }
                                got = g;
                            }
                            case 2 -> got = map.containsKey(key) ? before : null; // presence only
                            default -> {
                                long d = map.getOrDefault(key, -1L);
                                got = d == -1 ? null : d;
                            }
                        }
                        long s2 = state.get(k);
                        if (s1 == s2 && (s1 & 2) == 0) {
                            quietChecks.incrementAndGet();
                            Long expected = (s1 & 1) != 0 ? before : null;
                            if (op == 2) {
                                assertEquals(expected != null, got != null, "containsKey(" + k + ") with no write overlapping");
                            } else {
                                assertEquals(expected, got, "read op " + op + " of key " + k + " with no write overlapping");
                            }
                        } else if (got != null && op != 2) {
                            assertEquals(key, keyOf(got), "read of " + k + " returned a value of another key: " + Long.toHexString(got));
                            if (seqOf(got) > s2 >>> 2) fail("read of " + k + " returned seq " + seqOf(got) + ", not written yet");
                            if ((s1 & 3) == 1 && seqOf(got) < seqOf(before)) {
                                fail("read of " + k + " returned seq " + seqOf(got) + ", older than " + seqOf(before)
                                        + " which was current when it started");
                            }
                        }
                        if (got != null && op != 2) {
                            if (seqOf(got) < lastSeen[k]) {
                                fail("reader went back in time on " + k + ": seq " + seqOf(got) + " after " + lastSeen[k]);
                            }
                            lastSeen[k] = seqOf(got);
                        }
                    }
                });
            }
            crew.run(nanos);
            assertTrue(quietChecks.get() > 0, "no read ran without an overlapping write");
            for (int k = 0; k < n; k++) {
                long st = state.get(k);
                assertEquals((st & 1) != 0 ? (Long) current.get(k) : null, map.get((long) k), "final value of " + k);
            }
            assertEquals(0, ceilingBelow.get(), "ceilingEntry results below the probe, e.g. " + ceilingExample.get());
        }
    }

    /** The read scenario on virtual threads (more threads than cores and carriers). */
    @Test
    void readsReturnOnlyWrittenValuesOnVirtualThreads() throws Exception {
        readScenario(Thread.ofVirtual().name("oak-vt-read-", 0).factory(), 4, 4, PHASE_NANOS / 2);
    }

    // =============================================================================================
    // reclamation: churn keeps memory bounded
    // =============================================================================================

    /**
     * Two threads churn 512 keys (put, remove, putIfAbsent, and computes that resize values to
     * random sizes up to 2 KB, so values move) on a map over an allocator limited to 8 MiB, for
     * many times that volume of allocation. No allocation may fail; the footprint stays below
     * what 512 entries can hold at most, after the first phase and after a phase four times as
     * long (it does not grow with the number of operations); and once quiescent and drained, the
     * allocator holds no more than the footprint (nothing leaked).
     */
    @Test
    void churnWithReclamationKeepsMemoryBounded() throws Exception {
        final int n = 512, maxValue = 2048;
        final long budget = 8L << 20;
        FloeAllocator alloc = FloeAllocator.builder().name("oak-stress-churn").regionSize(64L << 20).budget(budget)
                .jmx(false).build();
        try {
            Nova nova = new Nova(alloc);
            try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                    .maxChunkEntries(4).nova(nova).build()) {
                AtomicLong requested = new AtomicLong();
                // the most 512 entries can hold: key block + largest value block each, generously
                long bound = n * (64L + 4096L);
                long[] footprints = new long[2];
                int phase1 = 40_000 * SCALE;
                for (int phase = 0; phase < 2; phase++) {
                    int ops = phase == 0 ? phase1 : 4 * phase1;
                    Crew crew = new Crew(platform("churn"));
                    for (int t = 0; t < 2; t++) {
                        int id = t, p = phase;
                        crew.add("churner-" + t, () -> {
                            SplittableRandom r = new SplittableRandom(p * 10 + id);
                            long bytes = 0;
                            for (int i = 0; i < ops && !crew.failed(); i++) {
                                long k = r.nextInt(n);
                                switch (r.nextInt(5)) {
                                    case 0 -> { map.put(k, enc(k, i)); bytes += 8; }
                                    case 1 -> map.remove(k);
                                    case 2 -> { map.putIfAbsent(k, enc(k, i)); bytes += 8; }
                                    case 3 -> map.zc().remove(k);
                                    default -> {
                                        int size = 8 + r.nextInt(maxValue - 8);
                                        if (map.zc().computeIfPresent(k, b -> {
                                            b.resize(size);
                                            b.putLong(0, enc(k, size));
                                        })) {
                                            bytes += size;
                                        }
                                    }
                                }
                            }
                            requested.addAndGet(bytes);
                        });
                    }
                    crew.run(COUNTED_NANOS);
                    nova.reclaimNow();
                    footprints[phase] = map.offHeapFootprint();
                    long live = alloc.stats().liveBytes();
                    assertTrue(footprints[phase] <= bound,
                            "footprint " + footprints[phase] + " above what " + n + " entries hold: " + bound);
                    assertTrue(live <= footprints[phase] + (64 << 10),
                            "allocator holds " + live + " bytes, the map's footprint is " + footprints[phase]
                                    + " (leak?); waiting slices " + nova.waitingSlices() + "; " + alloc.stats());
                    int entries = 0;
                    for (Map.Entry<Long, Long> e : take(map.entrySet(), SCAN_LIMIT)) {
                        assertEquals((long) e.getKey(), keyOf(e.getValue()));
                        entries++;
                    }
                    assertEquals(entries, map.size());
                }
                assertTrue(requested.get() > 4 * budget,
                        "the churn requested only " + requested.get() + " bytes: too little to prove reclamation");
                assertTrue(footprints[1] <= Math.max(2 * footprints[0], bound / 2),
                        "footprint grew with the operations: " + footprints[0] + " then " + footprints[1]);
            } catch (FloeOutOfMemoryException e) {
                throw new AssertionError("memory not reclaimed: the 8 MiB budget ran out", e);
            }
        } finally {
            alloc.close();
        }
    }

    // =============================================================================================
    // a removed key whose value slice was reclaimed and reused
    // =============================================================================================

    /**
     * Single-threaded: 100 keys in one chunk (default chunk size, so one removal does not
     * rebalance it), remove key 50, drain Nova's retire batches so that the removed value's block
     * is freed, then allocate many values of the same size in another map on the same Nova, so
     * the block is reused. Reads of key 50 must still say "absent" (and a put must insert it
     * again). An entry that keeps naming the removed slice makes every lookup of the key follow a
     * chain that cannot be followed any more ({@code ValueSlices.resolve} gives LOST) and retry
     * forever: the reader thread hangs (reported after about 10 s). A work-in-progress version
     * of commit 6421c37 (entries keeping the removed pointer, no LOST check) did.
     */
    @Test
    void aRemovedKeyStaysAbsentAfterItsValueSliceIsReused() throws Exception {
        FloeAllocator alloc = FloeAllocator.builder().name("oak-stress-reuse").regionSize(64L << 20).jmx(false).build();
        try {
            Nova nova = new Nova(alloc);
            try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).nova(nova).build()) {
                for (long k = 0; k < 100; k++) map.put(k, k);
                assertEquals(50L, map.remove(50L));
                nova.reclaimNow();
                // reuse the freed block through another map on the same Nova (an insert into this
                // map could rebalance key 50's chunk and drop its entry, hiding the problem)
                try (OakMap<Long, Long> other = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                        .nova(nova).build()) {
                    for (long k = 0; k < 2000; k++) other.put(k, k); // values of the removed one's size class
                }
                // the remove marked its entry, which readers skip without looking at the slice;
                // take the mark back, as if the remover had stalled before storing it, so that
                // the readers below meet the reused slice
                long removed = unmarkRemoved(map, 50L);
                // the case under test: the slice the entry names now holds another incarnation
                assertEquals(0, nova.beginReadAny(removed), "the removed value's block was reallocated");
                Crew crew = new Crew(platform("reuse"));
                crew.add("reader", () -> {
                    assertNull(map.get(50L));
                    assertFalse(map.containsKey(50L));
                    assertNull(map.zc().get(50L));
                    assertNull(map.remove(50L));
                    assertFalse(map.zc().computeIfPresent(50L, b -> b.putLong(0, 1)));
                    assertEquals(List.of(49L, 51L), take(map.subMap(49L, true, 51L, true).keySet(), SCAN_LIMIT));
                    assertNull(map.put(50L, 7L));
                    assertEquals(7L, map.get(50L));
                });
                crew.run(0, TimeUnit.SECONDS.toNanos(10));
            }
        } finally {
            alloc.close();
        }
    }

    /**
     * Clears the removed mark of {@code key}'s entry (a quiescent map), asserting that it was
     * there; returns the value pointer the entry now holds.
     */
    private static long unmarkRemoved(OakMap<Long, Long> map, long key) {
        InternalOakMap<Long, Long> core = map.core;
        Chunk c = core.locate(key);
        int r = c.search(core.keys, key);
        assertTrue(r > 0, "the removed key's entry is still in its chunk");
        long v = c.value(r);
        assertTrue(SafePointer.isDeleted(v), "the remove marked its entry's value word");
        assertTrue(c.casValue(r, v, SafePointer.clearDeleted(v)));
        return SafePointer.clearDeleted(v);
    }

    /**
     * Removes mark their entries' value words ({@code Chunk.markRemoved}); with reclamation off
     * the marked slices are never deleted by the removes, so close() must name them unmarked to
     * free them: a map closed on a shared allocator leaves no live bytes behind.
     */
    @Test
    void closeFreesTheRemovedValuesOfAMapWithoutReclamation() {
        FloeAllocator alloc = FloeAllocator.builder().name("oak-close-noreclaim").regionSize(64L << 20).jmx(false).build();
        try {
            Nova nova = new Nova(alloc);
            OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                    .nova(nova).reclaim(false).maxChunkEntries(4096).build();
            for (long k = 0; k < 1000; k++) map.put(k, k);
            for (long k = 0; k < 1000; k += 4) assertEquals(k, map.remove(k)); // below the removal trigger
            int marked = 0;
            for (Chunk c = map.core.firstChunk(); c != null; c = c.next) {
                for (int e = c.next(0); e != 0; e = c.next(e)) if (SafePointer.isDeleted(c.value(e))) marked++;
            }
            assertTrue(marked > 0, "removed entries still in their chunks are marked: " + marked);
            map.close();
            nova.reclaimNow();
            assertEquals(0, alloc.stats().liveBytes(), "close freed every key and value, removed ones included");
        } finally {
            alloc.close();
        }
    }

    // =============================================================================================
    // harness
    // =============================================================================================

    /**
     * On a virtual thread, parks for a microsecond: virtual threads are not time-sliced, so a loop
     * that never blocks keeps its carrier, and with as many such loops as carriers the other
     * threads never run (the scenario would stall through no fault of the map). Not a yield: a
     * yielding virtual thread goes back to its carrier's own queue when that holds other work, and
     * a carrier runs its own queue empty before it looks at the shared one, where the JDK puts a
     * virtual thread whose timed park ended (a map waiter's back-off); two endless yield loops
     * per carrier kept such a waiter off both carriers for seconds (the compute scenario on
     * virtual threads hung in about 1 run of 100). Nothing on a platform thread.
     */
    static void letOthersRun() {
        if (Thread.currentThread().isVirtual()) LockSupport.parkNanos(1_000);
    }

    static ThreadFactory platform(String name) {
        return Thread.ofPlatform().name("oak-" + name + "-", 0).daemon(true).factory();
    }

    interface Body {
        void run() throws Exception;
    }

    /**
     * The threads of one scenario, started together; the first failure stops the others (through
     * {@link #going} / {@link #failed}) and is rethrown, with the later ones suppressed. A thread
     * still running {@link #GRACE_NANOS} after the deadline fails the test with the stacks of the
     * threads still running (a hang: deadlock or livelock; they are daemons, left to spin).
     */
    static final class Crew {
        private final ThreadFactory factory;
        private final List<Thread> threads = new ArrayList<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final CountDownLatch start = new CountDownLatch(1);
        private volatile boolean failed;
        private volatile long deadline;

        Crew(ThreadFactory factory) {
            this.factory = factory;
        }

        void add(String name, Body body) {
            Thread t = factory.newThread(() -> {
                try {
                    start.await();
                    body.run();
                } catch (Throwable e) {
                    fail(new AssertionError(Thread.currentThread().getName() + " (" + name + "): " + e, e));
                }
            });
            threads.add(t);
        }

        void fail(Throwable t) {
            failures.add(t);
            failed = true;
        }

        boolean going() {
            return !failed && System.nanoTime() - deadline < 0;
        }

        boolean failed() {
            return failed;
        }

        void run(long nanos) throws Exception {
            run(nanos, GRACE_NANOS);
        }

        /** Runs the threads with the deadline {@code nanos} from now; {@code grace} later, they count as hung. */
        void run(long nanos, long grace) throws Exception {
            deadline = System.nanoTime() + nanos;
            for (Thread t : threads) t.start();
            start.countDown();
            long giveUp = System.nanoTime() + nanos + grace;
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(giveUp - System.nanoTime())));
            }
            List<Thread> stuck = threads.stream().filter(Thread::isAlive).toList();
            if (!stuck.isEmpty()) {
                // the stacks before the stop signal: it may release the threads it names
                StringBuilder sb = new StringBuilder("threads still running " + TimeUnit.NANOSECONDS.toSeconds(grace) + " s after the end (hang):");
                for (Thread t : stuck) {
                    sb.append("\n").append(t.getName()).append(" ").append(t.getState());
                    for (StackTraceElement e : t.getStackTrace()) sb.append("\n    at ").append(e);
                }
                failed = true;
                if (!failures.isEmpty()) sb.append("\nfirst failure: ").append(failures.getFirst());
                throw new AssertionError(sb.toString());
            }
            if (!failures.isEmpty()) {
                Throwable first = failures.getFirst();
                for (Throwable t : failures.subList(1, failures.size())) if (t != first) first.addSuppressed(t);
                if (first instanceof Error e) throw e;
                throw new AssertionError(first);
            }
        }
    }
}
