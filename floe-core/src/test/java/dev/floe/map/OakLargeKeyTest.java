package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Keys larger than a Nova slice ({@code KeySlices}' out-of-line keys): they order, compare and
 * round-trip like inline keys through every path that reads a key (search, navigation, scans in
 * both directions, chunk min keys copied by rebalances, zero-copy key buffers); their runs are
 * freed with their slices; a failing serializer leaves nothing allocated; and readers comparing
 * keys that rebalances retire never accept a foreign key.
 */
class OakLargeKeyTest {
    private static final long SECONDS = Long.getLong("floe.stress.seconds", 3);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 32).jmx(false)
                .name("oak-large-key-" + NAMES.incrementAndGet()).build();
    }

    private static OakMap<byte[], Long> map(Nova nova, int chunk) {
        return OakMap.builder(OakCodecs.BYTES, OakCodecs.LONG, OakCodecs.BYTES).nova(nova).maxChunkEntries(chunk).build();
    }

    /**
     * A key of {@code size} bytes that shares a long common prefix with every other key of that
     * size, so that comparing two of them reads deep into both: zeros, then {@code id} big-endian
     * in the last 4 bytes (fewer when the key is shorter).
     */
    private static byte[] key(int size, int id) {
        byte[] k = new byte[size];
        for (int i = 0; i < Math.min(4, size); i++) k[size - 1 - i] = (byte) (id >>> (8 * i));
        return k;
    }

    @Test
    void largeKeysOrderAndRoundTripLikeSmallOnesAgainstAnOracle() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            int slice = (int) nova.maxSlice();
            try (OakMap<byte[], Long> m = map(nova, 8)) {
                assertTrue(m.maxKeySize() > 1 << 24, "keys may be far larger than a slice: " + m.maxKeySize());
                int[] sizes = {0, 3, 8, 100, slice - 1, slice, slice + 1, 16_384, 40_000, 70_001, (1 << 20) + 3};
                ConcurrentSkipListMap<byte[], Long> oracle = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
                Random r = new Random(42);
                for (int step = 0; step < 4_000; step++) {
                    byte[] k = key(sizes[r.nextInt(sizes.length)], r.nextInt(40));
                    switch (r.nextInt(6)) {
                        case 0, 1 -> assertEquals(oracle.put(k, (long) step), m.put(k, (long) step), "put");
                        case 2 -> assertEquals(oracle.remove(k), m.remove(k), "remove");
                        case 3 -> assertEquals(key(oracle.floorKey(k)), key(m.floorKey(k)), "floorKey");
                        case 4 -> assertEquals(key(oracle.higherKey(k)), key(m.higherKey(k)), "higherKey");
                        default -> assertEquals(oracle.get(k), m.get(k), "get");
                    }
                }
                assertTrue(a.stats().largeRuns() > 0, "some keys are in large runs");
                assertEntries(oracle, m);
                assertEntries(oracle.descendingMap(), m.descendingMap());
                // zero-copy key buffers (size and bytes), the stream variant's reused buffer too
                Iterator<byte[]> want = oracle.keySet().iterator();
                for (OakReadBuffer b : m.zc().keySet()) {
                    byte[] k = want.next();
                    assertEquals(k.length, b.size());
                    assertArrayEquals(k, b.toByteArray());
                }
                want = oracle.keySet().iterator();
                for (OakReadBuffer b : m.zc().keyStreamSet()) assertArrayEquals(want.next(), b.toByteArray());
                byte[] first = oracle.firstKey(), last = oracle.lastKey();
                assertArrayEquals(first, m.firstKey());
                assertArrayEquals(last, m.lastKey());
                assertEquals(oracle.subMap(first, false, last, true).size(), m.subMap(first, false, last, true).size());
            }
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "close frees every key run");
            assertEquals(0, a.stats().liveBytes());
        }
    }

    private static String key(byte[] k) {
        return k == null ? "null" : k.length + ":" + Arrays.hashCode(k);
    }

    private static void assertEntries(Map<byte[], Long> want, Map<byte[], Long> got) {
        assertEquals(want.size(), got.size());
        Iterator<Map.Entry<byte[], Long>> w = want.entrySet().iterator();
        for (Map.Entry<byte[], Long> e : got.entrySet()) {
            Map.Entry<byte[], Long> x = w.next();
            assertArrayEquals(x.getKey(), e.getKey());
            assertEquals(x.getValue(), e.getValue());
        }
    }

    @Test
    void keyRunsAreFreedWhenRebalancesDropTheirEntries() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakMap<byte[], Long> m = map(nova, 8);
            long empty = m.offHeapFootprint();
            for (int i = 0; i < 100; i++) m.put(key(50_000, i), (long) i);
            assertEquals(100, a.stats().largeRuns());
            assertTrue(m.offHeapFootprint() - empty >= 100 * 50_000L, "the footprint counts key runs: " + m.offHeapFootprint());
            for (int i = 0; i < 100; i++) assertTrue(m.zc().remove(key(50_000, i)));
            for (int i = 0; i < 100; i++) m.put(key(8, i), (long) i); // churn: rebalances drop the removed entries
            for (int i = 0; i < 100; i++) m.remove(key(8, i));
            for (int i = 0; i < 100; i++) m.put(key(8, i), (long) i);
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "every dropped key's run is freed");
            assertTrue(m.offHeapFootprint() < 100 * 100L, "footprint " + m.offHeapFootprint());
            m.close();
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes());
        }
    }

    @Test
    void aKeyThatFailsToSerializeOrIsTooLargeLeavesNothingBehind() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakSerializer<byte[]> failing = new OakSerializer<>() {
                @Override
                public void serialize(byte[] v, MemorySegment target) {
                    if (v.length > 0 && v[0] == 1) throw new IllegalStateException("serializer failed");
                    OakCodecs.BYTES.serialize(v, target);
                }

                @Override
                public byte[] deserialize(MemorySegment source) {
                    return OakCodecs.BYTES.deserialize(source);
                }

                @Override
                public int sizeOf(byte[] v) {
                    return v.length == 2 ? Integer.MAX_VALUE : v.length; // a 2-byte key claims 2 GiB
                }
            };
            try (OakMap<byte[], Long> m = OakMap.builder(failing, OakCodecs.LONG, OakCodecs.BYTES).nova(nova).build()) {
                m.put(new byte[] {0}, 0L);
                nova.reclaimNow();
                long live = a.stats().liveBytes();
                for (int size : new int[] {8, 100_000}) {
                    byte[] k = new byte[size];
                    k[0] = 1;
                    assertThrows(IllegalStateException.class, () -> m.put(k, 1L));
                    nova.reclaimNow(); // a private slice is freed through the retire batches too
                    assertEquals(live, a.stats().liveBytes(), "the key slice (and run) of " + size + " bytes was freed");
                }
                assertThrows(IllegalArgumentException.class, () -> m.put(new byte[2], 1L), "above maxKeySize");
                assertEquals(1, m.size());
                assertEquals(0, a.stats().largeRuns());
            }
        }
    }

    @Test
    void aLargeKeyBeyondTheBudgetChangesNothing() {
        try (OakMap<byte[], Long> m = OakMap.builder(OakCodecs.BYTES, OakCodecs.LONG, OakCodecs.BYTES)
                .budget(8L << 20).build()) {
            m.put(key(1_000_000, 1), 1L);
            assertThrows(FloeOutOfMemoryException.class, () -> m.put(key(16 << 20, 2), 2L));
            assertEquals(1, m.size());
            assertEquals(1L, m.get(key(1_000_000, 1)));
            m.put(key(1_000_000, 3), 3L);
            assertEquals(List.of(1L, 3L), new ArrayList<>(m.values()));
        }
    }

    /**
     * Writers insert and remove large keys that share all but their last bytes (every comparison
     * reads to the end of both runs) with tiny chunks, so rebalances copy min keys out of runs and
     * retire dropped keys while readers compare against them. Readers check that every key a get,
     * a navigation or a scan returns is well formed (its id in the last 4 bytes matches the value),
     * that scans are strictly ascending, and that a key inserted for good is always found, by get
     * and by every scan.
     */
    @Test
    void readersNeverAcceptAForeignOrRetiredKey() throws Exception {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 16);
            OakMap<byte[], Long> m = map(nova, 8);
            int size = 20_000, ids = 64;
            for (int id = 7; id < ids; id += 8) m.put(key(size, id), (long) id); // never removed: ids 7, 15, ..., 63
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong(), writes = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (!stop.get() && failure.get() == null) {
                    try {
                        int id = r.nextInt(ids);
                        if (id % 8 == 7) continue;
                        if (r.nextBoolean()) m.put(key(size, id), (long) id);
                        else m.remove(key(size, id));
                        writes.incrementAndGet();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }
            }, "large-key-writer"));
            threads.add(new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (!stop.get() && failure.get() == null) {
                    try {
                        int id = r.nextInt(ids);
                        Long v = m.get(key(size, id));
                        if (id % 8 == 7) assertEquals(Long.valueOf(id), v, "a permanent key is found");
                        else if (v != null) assertEquals(id, v.longValue());
                        Map.Entry<byte[], Long> c = m.ceilingEntry(key(size, id));
                        assertNotNull(c, "the last permanent key bounds every ceiling below it");
                        checkKey(c.getKey(), c.getValue(), size);
                        int permanent = 0;
                        for (Map.Entry<byte[], Long> e : (r.nextBoolean() ? m : m.descendingMap()).entrySet()) {
                            checkKey(e.getKey(), e.getValue(), size);
                            if (e.getValue() % 8 == 7) permanent++;
                        }
                        assertEquals(ids / 8, permanent, "a scan returns every permanent key, once");
                        byte[] last = null;
                        for (byte[] k : m.keySet()) {
                            if (last != null) assertTrue(Arrays.compareUnsigned(last, k) < 0, "ascending, no duplicates");
                            last = k;
                        }
                        reads.incrementAndGet();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }
            }, "large-key-reader"));
            threads.forEach(Thread::start);
            Thread.sleep(Math.max(1, SECONDS) * 1000);
            stop.set(true);
            for (Thread t : threads) t.join();
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertTrue(reads.get() > 10 && writes.get() > 100, "reads " + reads + ", writes " + writes);
            m.close();
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "no key run outlives its slice");
            assertEquals(0, a.stats().liveBytes());
        }
    }

    /** A key returned with {@code value} is that value's key: the right size, zeros, then the id. */
    private static void checkKey(byte[] k, long value, int size) {
        assertEquals(size, k.length, "key size");
        MemorySegment s = MemorySegment.ofArray(k);
        assertEquals(value, Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), size - 4)),
                "the key's id is its value's");
        for (int i = 0; i < size - 4; i += 997) assertEquals(0, k[i], "zero prefix at " + i);
    }
}
