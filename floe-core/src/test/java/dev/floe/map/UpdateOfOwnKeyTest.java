package dev.floe.map;

import static dev.floe.map.OakMapContractTest.newMap;
import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A thread that holds a key's value (its compute function, zero-copy writer, serializer or
 * {@code equals} runs) and calls the map for that key in a way that would wait for the value:
 * an update of the key from any of them, a read of it from a zero-copy writer (which holds the
 * write lock from its first step). Such a call waited for its own thread for ever; it throws
 * {@link IllegalStateException} now ({@code ValueSlices}, "A thread that waits for itself"), the
 * outer update fails with it and leaves the mapping as it was. Waits for another thread's hold
 * are not affected.
 */
class UpdateOfOwnKeyTest {
    private static final Duration SOON = Duration.ofSeconds(10);

    /** The updates of key 5 that a function may try on its own key. */
    private static Map<String, Consumer<OakMap<Long, Long>>> updatesOfKey5() {
        Map<String, Consumer<OakMap<Long, Long>>> u = new LinkedHashMap<>();
        u.put("put", m -> m.put(5L, 1L));
        u.put("putIfAbsent", m -> m.putIfAbsent(5L, 1L));
        u.put("replace", m -> m.replace(5L, 1L));
        u.put("replace(k, old, new)", m -> m.replace(5L, 50L, 1L));
        u.put("remove", m -> m.remove(5L));
        u.put("remove(k, v)", m -> m.remove(5L, 50L));
        u.put("compute", m -> m.compute(5L, (k, v) -> 1L));
        u.put("merge", m -> m.merge(5L, 1L, Long::sum));
        u.put("zc put", m -> m.zc().put(5L, 1L));
        u.put("zc remove", m -> m.zc().remove(5L));
        u.put("zc computeIfPresent", m -> m.zc().computeIfPresent(5L, w -> w.putLong(0, 1L)));
        return u;
    }

    /** The legacy updates of key 5 whose function runs {@code inner}. */
    private static Map<String, Consumer<OakMap<Long, Long>>> outerUpdates(Consumer<OakMap<Long, Long>> inner) {
        Map<String, Consumer<OakMap<Long, Long>>> u = new LinkedHashMap<>();
        u.put("compute", m -> m.compute(5L, (k, v) -> { inner.accept(m); return v + 1; }));
        u.put("computeIfPresent", m -> m.computeIfPresent(5L, (k, v) -> { inner.accept(m); return v + 1; }));
        u.put("merge", m -> m.merge(5L, 1L, (a, b) -> { inner.accept(m); return a + b; }));
        u.put("replaceAll", m -> m.replaceAll((k, v) -> { if (k == 5L) inner.accept(m); return v + 1; }));
        u.put("zc computeIfPresent", m -> m.zc().computeIfPresent(5L, w -> { w.putLong(0, 77L); inner.accept(m); }));
        u.put("zc putIfAbsentComputeIfPresent",
                m -> m.zc().putIfAbsentComputeIfPresent(5L, 0L, w -> { w.putLong(0, 77L); inner.accept(m); }));
        return u;
    }

    private static OakMap<Long, Long> filled() {
        OakMap<Long, Long> m = newMap(4);
        for (long k = 0; k < 10; k++) m.put(k, k * 10);
        return m;
    }

    /** Runs {@code outer} and expects the inner call's exception, soon, and the map unchanged and usable after. */
    private static void failsAndChangesNothing(String what, Consumer<OakMap<Long, Long>> outer) {
        try (OakMap<Long, Long> m = filled()) {
            Executable call = () -> outer.accept(m);
            IllegalStateException e = assertTimeoutPreemptively(SOON, () -> assertThrows(IllegalStateException.class, call, what),
                    what + ": did not end (the thread waits for itself)");
            assertTrue(e.getMessage().contains("wait for itself"), what + ": " + e.getMessage());
            assertEquals(50L, m.get(5L), what + ": the failed update changed the value");
            assertEquals(10, m.size(), what);
            assertEquals(51L, assertTimeoutPreemptively(SOON, () -> m.compute(5L, (k, v) -> v + 1)), what + ": the key stayed held");
        }
    }

    @Test
    void aFunctionThatUpdatesItsOwnKeyThrowsInsteadOfWaitingForItself() {
        for (var inner : updatesOfKey5().entrySet()) {
            for (var outer : outerUpdates(inner.getValue()).entrySet()) {
                failsAndChangesNothing(outer.getKey() + " whose function calls " + inner.getKey(), outer.getValue());
            }
        }
    }

    /** A zero-copy writer holds the write lock from its first step, so reads of its key through the map would wait too. */
    @Test
    void aZeroCopyWriterThatReadsItsOwnKeyThroughTheMapThrows() {
        Map<String, Consumer<OakMap<Long, Long>>> reads = new LinkedHashMap<>();
        reads.put("get", m -> m.get(5L));
        reads.put("containsKey", m -> m.containsKey(5L));
        reads.put("ceilingEntry", m -> m.ceilingEntry(5L));
        reads.put("values", m -> new ArrayList<>(m.values()));
        reads.put("descending entries", m -> new ArrayList<>(m.descendingMap().entrySet()));
        reads.put("zc get", m -> m.zc().get(5L).getLong(0));
        for (var read : reads.entrySet()) {
            Consumer<OakMap<Long, Long>> inner = read.getValue();
            failsAndChangesNothing("zc computeIfPresent reading " + read.getKey(),
                    m -> m.zc().computeIfPresent(5L, w -> { w.putLong(0, 77L); inner.accept(m); }));
        }
    }

    /** Nested holds of different keys: each function may update the other keys, and a key its caller holds fails. */
    @Test
    void nestedUpdatesOfOtherKeysWorkAndTheOuterKeyIsRecognised() {
        try (OakMap<Long, Long> m = filled()) {
            assertEquals(51L, assertTimeoutPreemptively(SOON, () -> m.compute(5L, (k, v) -> {
                m.compute(6L, (k2, v2) -> { m.put(7L, 700L); return v2 + 1; });
                m.zc().computeIfPresent(8L, w -> w.putLong(0, w.getLong(0) + 1));
                return v + 1;
            })));
            assertEquals(List.of(51L, 61L, 700L, 81L), List.of(m.get(5L), m.get(6L), m.get(7L), m.get(8L)));
        }
        failsAndChangesNothing("compute of 6 inside compute of 5 that puts 5",
                m -> m.compute(5L, (k, v) -> m.compute(6L, (k2, v2) -> { m.put(5L, 1L); return v2; })));
    }

    /**
     * Waits for another thread's hold are not mistaken for waits for oneself: while a zero-copy
     * writer holds key 1 long past the spins after which a wait looks at the holder, another
     * thread's get and compute of key 1 wait, then see the writer's value.
     */
    @Test
    void waitsForAnotherThreadsHoldStillWait() throws Exception {
        try (OakMap<Long, Long> m = newMap(4)) {
            m.put(1L, 10L);
            CountDownLatch inWriter = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                Future<Boolean> writer = pool.submit(() -> m.zc().computeIfPresent(1L, w -> {
                    w.putLong(0, 11L);
                    inWriter.countDown();
                    MapFunctionContractTest.awaitQuietly(release);
                }));
                assertTrue(inWriter.await(10, TimeUnit.SECONDS));
                Future<Long> read = pool.submit(() -> m.get(1L));
                Future<Long> update = pool.submit(() -> m.compute(1L, (k, v) -> v * 100));
                Thread.sleep(300); // both well past their spins
                assertFalse(read.isDone(), "a read passed a value being written");
                assertFalse(update.isDone(), "a second writer ran while the first held the value");
                release.countDown();
                assertTrue(writer.get(10, TimeUnit.SECONDS));
                long seen = read.get(10, TimeUnit.SECONDS);
                assertTrue(seen == 11L || seen == 1100L, "read " + seen);
                assertEquals(1100L, update.get(10, TimeUnit.SECONDS));
            } finally {
                release.countDown();
                pool.shutdownNow();
            }
        }
    }
}
