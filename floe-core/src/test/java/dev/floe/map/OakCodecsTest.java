package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;

/**
 * The ready-made codecs keep the comparator contract: the three comparisons (objects, serialized,
 * one of each) agree with the type's natural order, a smaller order prefix means a smaller key,
 * the serialized prefix equals the object's, and a value survives a serialize/deserialize round
 * trip. Inputs are random, with short lengths favoured so that common prefixes occur.
 */
class OakCodecsTest {

    @Property(tries = 2000)
    void compareUnsignedIsArraysCompareUnsigned(@ForAll @Size(max = 20) byte[] a, @ForAll @Size(max = 20) byte[] b) {
        assertEquals(Integer.signum(Arrays.compareUnsigned(a, b)),
                Integer.signum(OakCodecs.compareUnsigned(MemorySegment.ofArray(a), MemorySegment.ofArray(b))));
    }

    @Property(tries = 2000)
    void bytesKeepTheContract(@ForAll @Size(max = 20) byte[] a, @ForAll @Size(max = 20) byte[] b) {
        checkContract(OakCodecs.BYTES, a, b, Integer.signum(Arrays.compareUnsigned(a, b)));
        assertArrayEquals(a, roundTrip(OakCodecs.BYTES, a));
    }

    @Property(tries = 2000)
    void longsKeepTheContract(@ForAll long a, @ForAll long b) {
        checkContract(OakCodecs.LONG, a, b, Integer.signum(Long.compare(a, b)));
        assertEquals(a, roundTrip(OakCodecs.LONG, a));
    }

    @Property(tries = 2000)
    void stringsKeepTheContract(@ForAll @StringLength(max = 10) String a, @ForAll @StringLength(max = 10) String b) {
        checkContract(OakCodecs.STRING, a, b, Integer.signum(a.compareTo(b)));
        assertEquals(a, roundTrip(OakCodecs.STRING, a));
    }

    private static <K, C extends OakSerializer<K> & OakComparator<K>> void checkContract(C codec, K a, K b, int expected) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = serialize(codec, a, arena), sb = serialize(codec, b, arena);
            assertEquals(expected, Integer.signum(codec.compareKeys(a, b)), "compareKeys");
            assertEquals(expected, Integer.signum(codec.compareSerializedKeys(sa, sb)), "compareSerializedKeys");
            assertEquals(expected, Integer.signum(codec.compareKeyAndSerializedKey(a, sb)), "compareKeyAndSerializedKey");
            assertEquals(-expected, Integer.signum(codec.compareKeyAndSerializedKey(b, sa)), "compareKeyAndSerializedKey, reversed");
            assertEquals(codec.prefixOf(a), codec.prefixOfSerialized(sa), "prefixOfSerialized");
            if (Long.compareUnsigned(codec.prefixOf(a), codec.prefixOf(b)) < 0) assertTrue(expected < 0, "a smaller prefix orders first");
            if (Long.compareUnsigned(codec.prefixOf(a), codec.prefixOf(b)) > 0) assertTrue(expected > 0, "a larger prefix orders last");
        }
    }

    private static <K> MemorySegment serialize(OakSerializer<K> codec, K key, Arena arena) {
        MemorySegment s = arena.allocate(Math.max(1, codec.sizeOf(key))).asSlice(0, codec.sizeOf(key));
        codec.serialize(key, s);
        return s;
    }

    private static <K> K roundTrip(OakSerializer<K> codec, K key) {
        try (Arena arena = Arena.ofConfined()) {
            return codec.deserialize(serialize(codec, key, arena).asReadOnly());
        }
    }
}
