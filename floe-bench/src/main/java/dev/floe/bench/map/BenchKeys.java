package dev.floe.bench.map;

import dev.floe.map.OakComparator;
import dev.floe.map.OakSerializer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The benchmark's keys and their order, one codec for every implementation.
 *
 * <p>A key of key id {@code i} is {@code keyBytes} bytes (at least 8): {@code i} big-endian in
 * the first 8, then a fixed filler. Keys order as unsigned byte strings
 * ({@link Arrays#compareUnsigned}), which for these keys is: the first 8 bytes as an unsigned
 * big-endian {@code long}, then the remaining bytes unsigned lexicographically, shorter first on a
 * common prefix. Distinct key ids differ in their first word, so a comparison of unequal keys
 * reads one word of each; equal keys compare all bytes (one {@code mismatch}).
 *
 * <p>The same order is exposed as an {@link OakComparator} (with the first word as Oak's
 * on-heap order prefix), an {@link OakSerializer} (the bytes as they are) and a
 * {@link Comparator} for {@code ConcurrentSkipListMap}. MapDB's {@code Serializer.BYTE_ARRAY}
 * orders byte arrays the same way (unsigned lexicographic), which the tests check.
 */
final class BenchKeys implements OakSerializer<byte[]>, OakComparator<byte[]>, Comparator<byte[]> {

    /** The one instance (stateless). */
    static final BenchKeys CODEC = new BenchKeys();

    /** Big-endian long view of byte arrays. */
    static final VarHandle BE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Native-order long view of byte arrays (value words, as Oak's buffers read them). */
    static final VarHandle NATIVE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** Big-endian long at any offset of a segment. */
    static final ValueLayout.OfLong BE_LONG_LAYOUT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private BenchKeys() {}

    /** A new key array for key id {@code id}. */
    static byte[] key(long id, int keyBytes) {
        if (keyBytes < 8) throw new IllegalArgumentException("keys have at least 8 bytes: " + keyBytes);
        byte[] k = new byte[keyBytes];
        for (int i = 8; i < keyBytes; i++) k[i] = (byte) (i * 31 + 7);
        BE_LONG.set(k, 0, id);
        return k;
    }

    /** Re-points a key array made by {@link #key} at key id {@code id}. */
    static void setId(byte[] key, long id) {
        BE_LONG.set(key, 0, id);
    }

    /** The key id of a key array. */
    static long id(byte[] key) {
        return (long) BE_LONG.get(key, 0);
    }

    /** The key id of a serialized key. */
    static long id(MemorySegment key) {
        return key.get(BE_LONG_LAYOUT, 0);
    }

    // ---- Comparator<byte[]> (ConcurrentSkipListMap) -------------------------------------------

    @Override
    public int compare(byte[] a, byte[] b) {
        if (a.length >= 8 && b.length >= 8) {
            long x = (long) BE_LONG.get(a, 0);
            long y = (long) BE_LONG.get(b, 0);
            if (x != y) return Long.compareUnsigned(x, y);
            return Arrays.compareUnsigned(a, 8, a.length, b, 8, b.length);
        }
        return Arrays.compareUnsigned(a, b);
    }

    // ---- OakComparator ------------------------------------------------------------------------

    @Override
    public int compareKeys(byte[] a, byte[] b) {
        return compare(a, b);
    }

    @Override
    public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
        long la = a.byteSize(), lb = b.byteSize();
        if (la >= 8 && lb >= 8) {
            long x = a.get(BE_LONG_LAYOUT, 0);
            long y = b.get(BE_LONG_LAYOUT, 0);
            if (x != y) return Long.compareUnsigned(x, y);
            return tail(a, 8, la, b, 8, lb);
        }
        return tail(a, 0, la, b, 0, lb);
    }

    @Override
    public int compareKeyAndSerializedKey(byte[] key, MemorySegment serialized) {
        long ls = serialized.byteSize();
        if (key.length >= 8 && ls >= 8) {
            long x = (long) BE_LONG.get(key, 0);
            long y = serialized.get(BE_LONG_LAYOUT, 0);
            if (x != y) return Long.compareUnsigned(x, y);
            return tailWords(key, serialized, ls);
        }
        return tail(MemorySegment.ofArray(key), 0, key.length, serialized, 0, ls);
    }

    /**
     * Oak's order prefix: the first 8 bytes big-endian (zero-padded). An unsigned-smaller prefix
     * means a smaller key, as the prefix contract asks. (A plain method where the map has no
     * prefix hook.)
     */
    public long prefixOf(byte[] key) {
        if (key.length >= 8) return (long) BE_LONG.get(key, 0);
        long p = 0;
        for (int i = 0; i < 8; i++) p = (p << 8) | (i < key.length ? key[i] & 0xFF : 0);
        return p;
    }

    /** {@link #prefixOf} of a serialized key. */
    public long prefixOfSerialized(MemorySegment key) {
        long n = key.byteSize();
        if (n >= 8) return key.get(BE_LONG_LAYOUT, 0);
        long p = 0;
        for (int i = 0; i < 8; i++) p = (p << 8) | (i < n ? key.get(ValueLayout.JAVA_BYTE, i) & 0xFF : 0);
        return p;
    }

    /** Tails longer than this are compared by one vectorized {@code mismatch}, as {@code Arrays.compareUnsigned} does for cslm. */
    private static final int WORD_LOOP_MAX = 256;

    /**
     * The order of {@code key} and {@code serialized} whose first words are equal: the rest a
     * big-endian word at a time (an equal key, every hit of a lookup, compares all of it), then
     * byte by byte, shorter first. A long tail (large keys, {@code --key-bytes}) is one
     * {@link MemorySegment#mismatch} instead: the word loop took 32 KiB keys to a seventh of cslm's
     * lookup rate, whose comparator is vectorized; the default 100-byte keys keep the loop.
     */
    private static int tailWords(byte[] key, MemorySegment serialized, long ls) {
        int n = (int) Math.min(key.length, ls);
        if (n > WORD_LOOP_MAX) return tail(MemorySegment.ofArray(key), 8, key.length, serialized, 8, ls);
        int off = 8;
        for (; off + 8 <= n; off += 8) {
            long x = (long) BE_LONG.get(key, off);
            long y = serialized.get(BE_LONG_LAYOUT, off);
            if (x != y) return Long.compareUnsigned(x, y);
        }
        for (; off < n; off++) {
            int c = Integer.compare(key[off] & 0xFF, serialized.get(ValueLayout.JAVA_BYTE, off) & 0xFF);
            if (c != 0) return c;
        }
        return Long.compare(key.length, ls);
    }

    /** Unsigned lexicographic order of {@code a[ao, al)} and {@code b[bo, bl)}. */
    private static int tail(MemorySegment a, long ao, long al, MemorySegment b, long bo, long bl) {
        long i = MemorySegment.mismatch(a, ao, al, b, bo, bl);
        if (i < 0) return 0;
        if (ao + i == al) return -1;
        if (bo + i == bl) return 1;
        return Integer.compare(Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, ao + i)),
                Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, bo + i)));
    }

    // ---- OakSerializer ------------------------------------------------------------------------

    @Override
    public void serialize(byte[] key, MemorySegment target) {
        MemorySegment.copy(key, 0, target, ValueLayout.JAVA_BYTE, 0, key.length);
    }

    @Override
    public byte[] deserialize(MemorySegment source) {
        return source.toArray(ValueLayout.JAVA_BYTE);
    }

    @Override
    public int sizeOf(byte[] key) {
        return key.length;
    }
}
