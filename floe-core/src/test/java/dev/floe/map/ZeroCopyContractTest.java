package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Contract edge cases of the zero-copy API ({@link ZeroCopyMap}, {@link OakReadBuffer},
 * {@link OakWriteBuffer}) and of the map's life cycle that {@link ZeroCopyMapTest} does not pin:
 * reads outside the value, writer resizes that fail, closed sub-views, a close racing other
 * threads, and what keeps a map from its {@code Cleaner}.
 */
class ZeroCopyContractTest {
    private static OakMap<Long, byte[]> bytesMap() {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(8).build();
    }

    /** Every typed getter of a value buffer refuses a field that does not lie wholly inside the value. */
    @Test
    void readBufferGettersRefuseFieldsOutsideTheValue() {
        try (OakMap<Long, byte[]> m = bytesMap()) {
            m.zc().put(1L, new byte[12]);
            OakReadBuffer v = m.zc().get(1L);
            OakReadBuffer k = m.zc().keySet().iterator().next();
            assertEquals(12, v.size());
            assertEquals(0, v.getLong(4));
            assertEquals(0, v.getInt(8));
            int[] bad = {-1, Integer.MIN_VALUE, 5, 12, Integer.MAX_VALUE, Integer.MAX_VALUE - 3};
            for (int off : bad) {
                assertThrows(IndexOutOfBoundsException.class, () -> v.getLong(off), "getLong " + off);
                assertThrows(IndexOutOfBoundsException.class, () -> k.getLong(off), "key getLong " + off);
            }
            assertThrows(IndexOutOfBoundsException.class, () -> v.getInt(9));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getShort(11));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getByte(12));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getDouble(5));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getFloat(-4));
            // the buffer is still fine afterwards (the failed reads unlocked nothing, changed nothing)
            assertEquals(12, v.toByteArray().length);
        }
    }

    /** A writer's resize to a negative size is refused, the value is intact and unlocked. */
    @Test
    void writerResizeToANegativeSizeIsRefusedAndTheValueStays() {
        try (OakMap<Long, byte[]> m = bytesMap()) {
            m.zc().put(1L, new byte[] {1, 2, 3});
            assertThrows(IllegalArgumentException.class, () -> m.zc().computeIfPresent(1L, w -> w.resize(-1)));
            assertArrayEquals(new byte[] {1, 2, 3}, m.get(1L));
            assertTrue(m.zc().computeIfPresent(1L, w -> w.putByte(0, (byte) 9))); // unlocked
            assertArrayEquals(new byte[] {9, 2, 3}, m.get(1L));
        }
    }

    /** Resizing twice (grow beyond the block, then shrink back, then to 0) publishes the last size only. */
    @Test
    void writerResizesTwiceAndToZero() {
        try (OakMap<Long, byte[]> m = bytesMap()) {
            m.zc().put(1L, new byte[] {1, 2, 3});
            m.zc().computeIfPresent(1L, w -> {
                w.resize(100_000);
                w.putByte(99_999, (byte) 7);
                w.resize(5);
                assertEquals(5, w.size());
                assertThrows(IndexOutOfBoundsException.class, () -> w.getByte(5));
            });
            assertArrayEquals(new byte[] {1, 2, 3, 0, 0}, m.get(1L));
            m.zc().computeIfPresent(1L, w -> w.resize(0));
            assertArrayEquals(new byte[0], m.get(1L));
            assertEquals(0, m.zc().get(1L).size());
        }
    }

    /** A resize past the map's budget throws FloeOutOfMemoryException, keeps the value and unlocks it. */
    @Test
    void writerResizeBeyondTheBudgetLeavesTheValueAndUnlocksIt() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(4 << 20).build()) {
            m.put(1L, new byte[] {1, 2, 3});
            long before = m.offHeapFootprint();
            assertThrows(FloeOutOfMemoryException.class, () -> m.zc().computeIfPresent(1L, w -> w.resize(m.maxValueSize())));
            assertArrayEquals(new byte[] {1, 2, 3}, m.get(1L));
            assertEquals(before, m.offHeapFootprint());
            // caught inside the writer: the writer goes on with the old block
            m.zc().computeIfPresent(1L, w -> {
                assertThrows(FloeOutOfMemoryException.class, () -> w.resize(m.maxValueSize()));
                w.putByte(0, (byte) 5);
            });
            assertArrayEquals(new byte[] {5, 2, 3}, m.get(1L));
        }
    }

    /** Zero-copy updates of keys outside a sub-view: puts refuse them, the others answer "absent". */
    @Test
    void subViewKeysOutOfRange() {
        try (OakMap<Long, byte[]> m = bytesMap()) {
            m.put(1L, new byte[1]);
            m.put(50L, new byte[1]);
            ZeroCopyMap<Long, byte[]> sub = m.zc().subMap(10L, true, 20L, false);
            assertNull(sub.get(1L));
            assertThrows(IllegalArgumentException.class, () -> sub.put(1L, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> sub.putIfAbsent(20L, new byte[1]));
            assertThrows(IllegalArgumentException.class, () -> sub.putIfAbsentComputeIfPresent(50L, new byte[1], w -> {}));
            assertFalse(sub.remove(1L));
            assertFalse(sub.computeIfPresent(50L, w -> fail("out of range")));
            assertThrows(IllegalArgumentException.class, () -> sub.subMap(5L, true, 15L, true));
            assertFalse(m.zc().remove(7L)); // missing key
            assertEquals(2, m.size());
        }
    }

    /**
     * Every use of a closed map through a sub-view made before the close throws
     * IllegalStateException, also with a key outside the view's range (those answered "absent"),
     * in the legacy views too.
     */
    @Test
    void closedSubViewRefusesKeysOutOfItsRangeToo() {
        OakMap<Long, byte[]> m = bytesMap();
        m.put(1L, new byte[1]);
        ZeroCopyMap<Long, byte[]> sub = m.zc().subMap(10L, true, 20L, false);
        java.util.concurrent.ConcurrentNavigableMap<Long, byte[]> legacy = m.subMap(10L, 20L);
        m.close();
        Map<String, Runnable> uses = new LinkedHashMap<>();
        uses.put("legacy sub.get(out of range)", () -> legacy.get(1L));
        uses.put("legacy sub.containsKey(out of range)", () -> legacy.containsKey(1L));
        uses.put("legacy sub.remove(out of range)", () -> legacy.remove(1L));
        uses.put("legacy sub.compute(out of range)", () -> legacy.compute(1L, (k, v) -> null));
        uses.put("sub.get(out of range)", () -> sub.get(1L));
        uses.put("sub.remove(out of range)", () -> sub.remove(1L));
        uses.put("sub.computeIfPresent(out of range)", () -> sub.computeIfPresent(1L, w -> {}));
        uses.put("sub.put(out of range)", () -> sub.put(1L, new byte[1]));
        assertEquals(List.of(), ClosedMapUses.notRefused(uses));
    }

    // ---- what keeps a map from its Cleaner -----------------------------------------------------

    /** A map reachable only from {@code held}: true if the Cleaner closed it during a few GCs. */
    private static boolean cleanedWhileHeld(WeakReference<?> map) throws InterruptedException {
        for (int i = 0; i < 50 && map.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        return map.get() == null;
    }

    private static OakMap<Long, byte[]> filled(List<WeakReference<?>> ref) {
        OakMap<Long, byte[]> m = bytesMap();
        for (long k = 0; k < 100; k++) m.put(k, new byte[] {(byte) k, 0, 0, 0, 0, 0, 0, 0});
        ref.add(new WeakReference<>(m));
        return m;
    }

    /**
     * An iterator of a zero-copy set keeps its map reachable, as the legacy views' iterators do: a
     * scan over a map that nothing else references must not find the map closed by its Cleaner
     * halfway (a method that fills a map, scans it and drops it without close).
     */
    @Test
    void aZeroCopyIteratorKeepsItsMapFromTheCleaner() throws InterruptedException {
        List<WeakReference<?>> ref = new ArrayList<>();
        Iterator<OakReadBuffer> it = filled(ref).zc().valueStreamSet().iterator();
        assertEquals(0, it.next().getByte(0));
        boolean cleaned = cleanedWhileHeld(ref.get(0));
        assertFalse(cleaned, "the map of a live zero-copy iterator was collected (and closed by its Cleaner)");
        assertEquals(1, it.next().getByte(0));
    }

    /** The legacy iterators already do (the reference for the test above). */
    @Test
    void aLegacyIteratorKeepsItsMapFromTheCleaner() throws InterruptedException {
        List<WeakReference<?>> ref = new ArrayList<>();
        Iterator<Long> it = filled(ref).keySet().iterator();
        assertEquals(0L, it.next());
        assertFalse(cleanedWhileHeld(ref.get(0)));
        assertEquals(1L, it.next());
    }

    // ---- close racing other threads ------------------------------------------------------------

    /**
     * Threads in get, put, compute, zero-copy writers and scans while another thread closes the
     * map: each ends with a normal result or IllegalStateException, none hangs, nothing else
     * is thrown (never a crash, never another value's bytes: values are all 8 copies of their
     * key's low byte).
     */
    @Test
    void closeRacingReadersWritersAndScansEndsEachCleanly() throws Exception {
        for (int round = 0; round < 6; round++) {
            boolean own = round % 2 == 0;
            OakMap.Builder<Long, byte[]> b = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(16);
            OakMap<Long, byte[]> m = own ? b.budget(64 << 20).build() : b.build();
            for (long k = 0; k < 2000; k++) m.put(k, value(k, 8));
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(4);
            List<Thread> threads = new ArrayList<>();
            List<Supplier<Object>> work = List.of(
                    () -> {
                        long sum = 0;
                        for (OakReadBuffer v : m.zc().valueStreamSet()) sum += check(v);
                        return sum;
                    },
                    () -> {
                        long k = (long) (Math.random() * 2000);
                        OakReadBuffer v = m.zc().get(k);
                        return v == null ? 0 : check(v);
                    },
                    () -> {
                        long k = (long) (Math.random() * 2000);
                        int size = Math.random() < 0.5 ? 8 : 3000;
                        m.zc().computeIfPresent(k, w -> {
                            w.resize(size);
                            byte x = (byte) k;
                            for (int i = 0; i < size; i++) w.putByte(i, x);
                        });
                        return null;
                    },
                    () -> {
                        long k = (long) (Math.random() * 4000);
                        if (Math.random() < 0.3) m.zc().remove(k);
                        else m.zc().put(k, value(k, Math.random() < 0.5 ? 8 : 40));
                        return null;
                    });
            for (Supplier<Object> w : work) {
                Thread t = Thread.ofPlatform().start(() -> {
                    started.countDown();
                    run(w, wrong, m);
                });
                threads.add(t);
            }
            started.await();
            Thread.sleep(30);
            m.close();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(20));
                if (t.isAlive()) {
                    StringBuilder where = new StringBuilder("round " + round + (own ? " (own budget)" : " (shared)")
                            + ": a thread hangs after close, at");
                    for (StackTraceElement e : t.getStackTrace()) where.append("\n  ").append(e);
                    fail(where.toString());
                }
            }
            if (wrong.get() != null) throw new AssertionError("round " + round + (own ? " (own budget)" : " (shared)"), wrong.get());
        }
    }

    /**
     * The legacy API's updates, polls, navigation and iterators and the zero-copy writers (values
     * growing beyond their slices and shrinking, keys inserted and removed) racing a close of a
     * map on a shared allocator: each thread ends with a normal result or IllegalStateException,
     * and once they have ended every block the map took is back in the allocator.
     */
    @Test
    void closeRacingEveryKindOfOperationGivesEveryBlockBack() throws Exception {
        for (int round = 0; round < 6; round++) {
            try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
                Nova nova = new Nova(a);
                OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                        .maxChunkEntries(8).nova(nova).build();
                for (long k = 0; k < 500; k++) m.put(k, value(k, 8));
                AtomicReference<Throwable> wrong = new AtomicReference<>();
                List<Supplier<Object>> work = List.of(
                        () -> {
                            long k = (long) (Math.random() * 1000);
                            if (Math.random() < 0.4) return m.remove(k);
                            return m.put(k, value(k, Math.random() < 0.5 ? 8 : 300));
                        },
                        () -> {
                            long k = (long) (Math.random() * 1000);
                            return Math.random() < 0.5
                                    ? m.compute(k, (kk, v) -> v == null ? value(kk, 8) : value(kk, v.length == 8 ? 3000 : 8))
                                    : m.merge(k, value(k, 8), (v, w) -> value(k, v.length + 100));
                        },
                        () -> Math.random() < 0.5 ? m.pollFirstEntry() : m.pollLastEntry(),
                        () -> {
                            long sum = 0;
                            for (Map.Entry<Long, byte[]> e : m.descendingMap().entrySet()) sum += e.getValue().length;
                            return sum + m.ceilingKey((long) (Math.random() * 1000)).hashCode();
                        },
                        () -> {
                            long k = (long) (Math.random() * 1000);
                            int size = Math.random() < 0.5 ? 8 : 5000;
                            m.zc().putIfAbsentComputeIfPresent(k, value(k, 8), w -> {
                                w.resize(size);
                                for (int i = 0; i < size; i++) w.putByte(i, (byte) k);
                            });
                            return null;
                        });
                CountDownLatch started = new CountDownLatch(work.size());
                List<Thread> threads = new ArrayList<>();
                for (Supplier<Object> w : work) {
                    threads.add(Thread.ofPlatform().start(() -> {
                        started.countDown();
                        run(() -> {
                            try {
                                return w.get();
                            } catch (NullPointerException noCeiling) {
                                return null; // ceilingKey found none: the map was empty above the probe
                            }
                        }, wrong, m);
                    }));
                }
                started.await();
                Thread.sleep(30);
                m.close();
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                    if (t.isAlive()) {
                        StringBuilder where = new StringBuilder("round " + round + ": a thread hangs after close, at");
                        for (StackTraceElement e : t.getStackTrace()) where.append("\n  ").append(e);
                        fail(where.toString());
                    }
                }
                if (wrong.get() != null) throw new AssertionError("round " + round, wrong.get());
                nova.reclaimNow();
                assertEquals(0, a.stats().liveBytes(), "round " + round + ": blocks outlived the map");
            }
        }
    }

    /** Runs {@code w} until the map refuses it (a removal seen by a reader is normal: go on). */
    private static void run(Supplier<Object> w, AtomicReference<Throwable> wrong, OakMap<?, ?> m) {
        while (true) {
            try {
                w.get();
            } catch (RemovedValueException again) {
                continue;
            } catch (IllegalStateException closed) {
                // refused because of the close (the map's or its region's), nothing else
                String msg = String.valueOf(closed.getMessage());
                if (!m.isClosed() || !(msg.contains("closed") || msg.contains("Already closed"))) wrong.compareAndSet(null, closed);
                return;
            } catch (Throwable e) {
                wrong.compareAndSet(null, e);
                return;
            }
        }
    }

    private static byte[] value(long k, int size) {
        byte[] v = new byte[size];
        java.util.Arrays.fill(v, (byte) k);
        return v;
    }

    /** The value's bytes are all one byte (never a mix of two values); returns its size. */
    private static long check(OakReadBuffer v) {
        byte[] b = v.toByteArray();
        for (byte x : b) if (x != b[0]) throw new AssertionError("a value mixes two values' bytes");
        return b.length;
    }

    /** A reader that keeps the view it was given reads nothing through it after its call. */
    @Test
    void aTransformViewKeptPastItsCallIsNotReadable() {
        OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).budget(4 << 20).build();
        m.put(1L, new byte[8]);
        MemorySegment kept = m.zc().get(1L).transform(s -> s);
        m.close();
        assertThrows(IllegalStateException.class, () -> kept.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
    }

    /**
     * A writer that grows its value beyond its slice works on a private copy, which the map
     * installs when the writer returns. If the map was closed meanwhile (here by the writer
     * itself, the same window as another thread's close), the copy was never installed, so the
     * close did not free it, and the failed install leaked it in a shared allocator. It is freed
     * now: after the close and a reclamation, the allocator holds nothing.
     */
    @Test
    void aResizedCopyThatTheCloseBeatIsFreed() {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(a);
            OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).nova(nova).build();
            m.put(1L, value(1, 8));
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(1L, w -> {
                w.resize(5000); // beyond the slice: a private copy
                m.close();
            }));
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes(), "a block outlived the map");
        }
    }
}
