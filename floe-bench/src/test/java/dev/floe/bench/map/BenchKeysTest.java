package dev.floe.bench.map;

import org.junit.jupiter.api.Test;
import org.mapdb.Serializer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The key codec orders keys exactly as unsigned byte strings, through every entry point (the
 * skiplist comparator, Oak's three comparisons, on heap and off-heap segments), its order
 * prefix is consistent with that order, and MapDB's byte-array serializer agrees.
 */
class BenchKeysTest {

    private static final BenchKeys K = BenchKeys.CODEC;

    /** Keys that exercise the word compare and the tail compare: benchmark keys, shared first words, odd lengths. */
    private static List<byte[]> keys() {
        SplittableRandom r = new SplittableRandom(7);
        List<byte[]> keys = new ArrayList<>();
        long[] ids = {0, 1, 2, 255, 256, Long.MAX_VALUE, Long.MIN_VALUE, -1, 0x80L, 0x7FL << 56, 0x80L << 56};
        for (long id : ids) keys.add(BenchKeys.key(id, 100));
        for (int i = 0; i < 200; i++) keys.add(BenchKeys.key(r.nextLong(), 100));
        for (int i = 0; i < 100; i++) {           // same first word, random tails of random lengths
            byte[] k = new byte[8 + r.nextInt(12)];
            BenchKeys.setId(k, r.nextInt(3));
            for (int j = 8; j < k.length; j++) k[j] = (byte) r.nextInt(4);
            keys.add(k);
        }
        for (int i = 0; i < 40; i++) {            // long tails (the mismatch path): same first word, a late difference
            byte[] k = new byte[250 + r.nextInt(400)];
            BenchKeys.setId(k, r.nextInt(2));
            if (r.nextBoolean()) k[k.length - 1 - r.nextInt(3)] = (byte) (r.nextInt(2) * 200);
            keys.add(k);
        }
        for (int i = 0; i < 50; i++) {            // shorter than a word
            byte[] k = new byte[r.nextInt(8)];
            for (int j = 0; j < k.length; j++) k[j] = (byte) (r.nextInt(3) * 127);
            keys.add(k);
        }
        return keys;
    }

    @Test
    void everyComparisonIsUnsignedLexicographic() {
        List<byte[]> keys = keys();
        try (Arena arena = Arena.ofConfined()) {
            List<MemorySegment> offHeap = new ArrayList<>();
            for (byte[] k : keys) {
                MemorySegment s = arena.allocate(Math.max(1, k.length)).asSlice(0, k.length);
                K.serialize(k, s);
                offHeap.add(s.asReadOnly());
            }
            for (int i = 0; i < keys.size(); i++) {
                for (int j = 0; j < keys.size(); j++) {
                    byte[] a = keys.get(i), b = keys.get(j);
                    int expected = Integer.signum(Arrays.compareUnsigned(a, b));
                    String what = Arrays.toString(a) + " vs " + Arrays.toString(b);
                    assertEquals(expected, Integer.signum(K.compare(a, b)), "comparator " + what);
                    assertEquals(expected, Integer.signum(K.compareKeys(a, b)), "compareKeys " + what);
                    assertEquals(expected, Integer.signum(K.compareSerializedKeys(offHeap.get(i), offHeap.get(j))),
                            "compareSerializedKeys " + what);
                    assertEquals(expected, Integer.signum(K.compareKeyAndSerializedKey(a, offHeap.get(j))),
                            "compareKeyAndSerializedKey " + what);
                    assertEquals(expected, Integer.signum(K.compareSerializedKeys(MemorySegment.ofArray(a),
                            MemorySegment.ofArray(b))), "heap segments " + what);
                    if (Long.compareUnsigned(K.prefixOf(a), K.prefixOf(b)) < 0) {
                        assertTrue(expected < 0, "a smaller prefix must mean a smaller key: " + what);
                    }
                }
                assertEquals(K.prefixOf(keys.get(i)), K.prefixOfSerialized(offHeap.get(i)), "prefix of the serialized key");
            }
        }
    }

    @Test
    void keyIdsOrderAsUnsignedLongsAndRoundTrip() {
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            long x = r.nextLong(), y = r.nextLong();
            byte[] a = BenchKeys.key(x, 100), b = BenchKeys.key(y, 100);
            assertEquals(Integer.signum(Long.compareUnsigned(x, y)), Integer.signum(K.compare(a, b)));
            assertEquals(x, BenchKeys.id(a));
            assertEquals(x, BenchKeys.id(MemorySegment.ofArray(a)));
        }
        byte[] k = BenchKeys.key(5, 100);
        assertEquals(100, K.sizeOf(k));
        assertTrue(Arrays.equals(k, K.deserialize(MemorySegment.ofArray(k))));
        assertEquals(0, K.compare(k, BenchKeys.key(5, 100)), "equal ids and filler: equal keys");
        assertTrue(BenchKeys.key(5, 100)[99] == k[99] && k[99] != 0, "the filler is not zero");
    }

    @Test
    void mapdbOrdersByteArraysTheSameWay() {
        List<byte[]> keys = keys();
        for (byte[] a : keys) {
            for (byte[] b : keys) {
                assertEquals(Integer.signum(K.compare(a, b)), Integer.signum(Serializer.BYTE_ARRAY.compare(a, b)),
                        Arrays.toString(a) + " vs " + Arrays.toString(b));
            }
        }
    }

    @Test
    void probeWritesItsKeyAndStampsValues() {
        Probe p = new Probe(100, 1000);
        p.key(42);
        assertEquals(42, BenchKeys.id(p.key));
        p.nextValue();
        long first = (long) BenchKeys.NATIVE_LONG.get(p.value, 0);
        p.nextValue();
        assertEquals(first + 1, (long) BenchKeys.NATIVE_LONG.get(p.value, 0));
        assertEquals(p.value[999], MemorySegment.ofArray(p.value).get(ValueLayout.JAVA_BYTE, 999));
        assertTrue(p.value[999] != 0 || p.value[998] != 0, "the value template carries a filler");
    }
}
