package dev.floe.map;

import static dev.floe.map.OakMapContractTest.newMap;
import static dev.floe.map.OakMapContractTest.same;
import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The legacy API's user functions against ConcurrentSkipListMap: a compute, merge or replaceAll
 * function may read the map, the key it updates included (it sees the value before the update),
 * in its own thread or by waiting for another, and replaceAll calls its function in the view's
 * order.
 */
class MapFunctionContractTest {
    /** Runs {@code op} in another thread and fails if it does not end soon (a wait for the caller's own lock spins forever). */
    private static <T> T soon(String what, Supplier<T> op) {
        return assertTimeoutPreemptively(Duration.ofSeconds(5), op::get, what + ": did not end (a wait for a lock that is never released)");
    }

    /** What the functions read: the key being computed, and scans that pass over it. */
    private static Map<String, Function<ConcurrentNavigableMap<Long, Long>, Object>> reads() {
        Map<String, Function<ConcurrentNavigableMap<Long, Long>, Object>> reads = new LinkedHashMap<>();
        reads.put("get", x -> x.get(5L));
        reads.put("getOrDefault", x -> x.getOrDefault(5L, -1L));
        reads.put("ceilingEntry", x -> x.ceilingEntry(5L));
        reads.put("toString", Object::toString);
        reads.put("values", x -> new ArrayList<>(x.values()));
        reads.put("containsValue", x -> x.containsValue(50L));
        reads.put("subMap.entrySet", x -> new ArrayList<>(x.subMap(4L, 7L).entrySet()));
        reads.put("descending entries", x -> new ArrayList<>(x.descendingMap().entrySet()));
        return reads;
    }

    /** Runs an update of key 5 whose function reads the map; returns its result, what the function read and the map after. */
    private static Object update(String op, ConcurrentNavigableMap<Long, Long> x, Function<ConcurrentNavigableMap<Long, Long>, Object> read) {
        List<Object> seen = new ArrayList<>();
        Object r = switch (op) {
            case "computeIfPresent" -> x.computeIfPresent(5L, (k, v) -> { seen.add(read.apply(x)); return v + 1; });
            case "compute" -> x.compute(5L, (k, v) -> { seen.add(read.apply(x)); return v + 1; });
            case "compute to null" -> x.compute(5L, (k, v) -> { seen.add(read.apply(x)); return null; });
            case "merge" -> x.merge(5L, 1L, (a, b) -> { seen.add(read.apply(x)); return a + b; });
            default -> {
                x.replaceAll((k, v) -> { if (k == 5L) seen.add(read.apply(x)); return v + 1; });
                yield null;
            }
        };
        return r + " " + seen + " " + x;
    }

    /**
     * Map.compute's contract forbids a function to modify the map, not to read it; the skip list's
     * functions read the current mapping. Oak's run under the value's lock, and a read of that
     * value (a get of the same key, a scan over it) waited for the lock its own thread held: forever.
     */
    @Test
    void computeFunctionsMayReadTheKeyTheyComputeLikeSkipList() {
        for (var read : reads().entrySet()) updatesLikeSkipList("reading " + read.getKey(), read.getValue());
    }

    /**
     * Every update ({@link #update}) of key 5 whose function makes {@code read}, on Oak and on the
     * skip list, each with keys 0 to 9 mapped to ten times the key: same results, same reads, same
     * map after, and Oak's update ends soon.
     */
    private static void updatesLikeSkipList(String what, Function<ConcurrentNavigableMap<Long, Long>, Object> read) {
        for (String op : List.of("computeIfPresent", "compute", "compute to null", "merge", "replaceAll")) {
            try (OakMap<Long, Long> m = newMap(4)) {
                ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
                for (long k = 0; k < 10; k++) {
                    m.put(k, k * 10);
                    o.put(k, k * 10);
                }
                String w = op + " " + what;
                same(w, () -> update(op, o, read), () -> soon(w, () -> update(op, m, read)));
                assertEquals(o, m, w);
            }
        }
    }

    /**
     * A function that computes another key whose function reads the first key (nested locks), and
     * a zero-copy read of the key from inside a legacy function, do not wait for themselves either.
     */
    @Test
    void nestedComputesAndZeroCopyReadsInsideAFunctionSeeTheHeldValues() {
        try (OakMap<Long, Long> m = newMap(4)) {
            for (long k = 0; k < 10; k++) m.put(k, k * 10);
            Long r = soon("nested", () -> m.compute(2L, (k, v) -> v + m.compute(3L, (k2, v2) -> v2 + m.get(2L))));
            assertEquals(20L + 30L + 20L, r);
            assertEquals(50L, m.get(3L));
            assertEquals(70L, m.get(2L));
            Long z = soon("zero-copy read", () -> m.computeIfPresent(4L, (k, v) -> v + m.zc().get(4L).getLong(0)));
            assertEquals(80L, z);
            assertEquals(80L, soon("after", () -> m.get(4L)));
        }
    }

    /**
     * A function may wait for another thread's read of the key it computes (a task it joins, a
     * parallel stream): the skip list's functions run unlocked, and Oak's now hold the value only
     * by a claim that readers pass until the new value is written. Such a read waited for the
     * lock for as long as the function ran, so the function waited forever. The other thread sees
     * the value as it was before the update, as with the skip list.
     */
    @Test
    void computeFunctionsMayWaitForAnotherThreadsReadOfTheirKey() throws InterruptedException {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            for (var read : reads().entrySet()) {
                updatesLikeSkipList("joining another thread's " + read.getKey(),
                        x -> CompletableFuture.supplyAsync(() -> read.getValue().apply(x), other).join());
            }
            try (OakMap<Long, Long> m = newMap(4)) {
                for (long k = 0; k < 10; k++) m.put(k, k * 10);
                Long zc = soon("zero-copy read in another thread", () -> m.computeIfPresent(4L,
                        (k, v) -> v + CompletableFuture.supplyAsync(() -> m.zc().get(4L).getLong(0), other).join()));
                assertEquals(80L, zc);
                Long sum = soon("parallel stream", () -> m.compute(5L,
                        (k, v) -> m.values().parallelStream().mapToLong(Long::longValue).sum()));
                assertEquals(10L * 45 + 40, sum); // 0..90 with 4 -> 80, read before 5 changes
                // a conditional remove's equals is user code under the claim too
                Object fifty = new Object() {
                    @Override
                    public boolean equals(Object o) {
                        return CompletableFuture.supplyAsync(() -> m.get(5L), other).join().equals(o);
                    }

                    @Override
                    public int hashCode() {
                        return 0;
                    }
                };
                assertTrue(soon("remove(k, v) whose equals reads the key elsewhere", () -> m.remove(5L, fifty)));
                assertFalse(m.containsKey(5L));
            }
        } finally {
            other.shutdownNow();
            assertTrue(other.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    /**
     * While a function runs, other threads' reads of its key return the old value at once and
     * other writers of the key wait: the claim excludes writers as the lock did. The function
     * blocks on a latch that the test opens only after a reader got the old value and a second
     * compute has started.
     */
    @Test
    void aClaimedValueIsReadableButNotWritableByOthers() throws Exception {
        try (OakMap<Long, Long> m = newMap(4)) {
            m.put(1L, 10L);
            CountDownLatch inFunction = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Long> first = pool.submit(() -> m.compute(1L, (k, v) -> {
                    inFunction.countDown();
                    awaitQuietly(release);
                    return v + 1;
                }));
                assertTrue(inFunction.await(10, TimeUnit.SECONDS));
                assertEquals(10L, soon("a read during the function", () -> m.get(1L)));
                assertEquals(10L, soon("a zero-copy read", () -> m.zc().get(1L).getLong(0)));
                Future<Long> second = pool.submit(() -> m.compute(1L, (k, v) -> v * 100));
                Thread.sleep(200); // time for the second compute to reach the claim
                assertFalse(second.isDone(), "a second writer ran while the first held the value");
                release.countDown();
                assertEquals(11L, first.get(10, TimeUnit.SECONDS));
                assertEquals(1100L, second.get(10, TimeUnit.SECONDS));
                assertEquals(1100L, m.get(1L));
            } finally {
                release.countDown();
                pool.shutdownNow();
            }
        }
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("never released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * replaceAll calls its function in the view's order, as the skip list's descending views do
     * (ConcurrentMap.replaceAll goes through forEach, in entry-set order): an order-dependent
     * function (a running sum here), and which values a function that throws midway has replaced
     * already, are the skip list's. Oak's views went in ascending key order whatever their direction.
     */
    @Test
    void replaceAllFollowsTheViewsOrderLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            for (long k = 0; k < 20; k++) {
                m.put(k, k);
                o.put(k, k);
            }
            List<Function<ConcurrentNavigableMap<Long, Long>, ConcurrentNavigableMap<Long, Long>>> views = List.of(
                    x -> x, ConcurrentNavigableMap::descendingMap, x -> x.subMap(3L, 15L).descendingMap(),
                    x -> x.descendingMap().headMap(8L, true));
            for (int i = 0; i < views.size(); i++) {
                var view = views.get(i);
                same("view " + i + ": running sum", o, m, x -> {
                    List<Long> calls = new ArrayList<>();
                    long[] sum = {0};
                    view.apply(x).replaceAll((k, v) -> {
                        calls.add(k);
                        return sum[0] += v;
                    });
                    return calls + " " + x;
                });
                same("view " + i + ": throws at the third call", o, m, x -> {
                    int[] n = {0};
                    try {
                        view.apply(x).replaceAll((k, v) -> {
                            if (++n[0] == 3) throw new IllegalStateException("third");
                            return v + 1000;
                        });
                    } catch (IllegalStateException expected) {
                        // the values replaced before it stay
                    }
                    return x.toString();
                });
            }
        }
    }
}
