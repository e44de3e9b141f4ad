package dev.floe.bench.somar;

import dev.floe.reclaim.SliceWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Keys and values, identical for every implementation.
 *
 * <p>A key of key id {@code i} is {@code keyBytes} bytes (a multiple of 8): {@code i} big-endian
 * in the first 8, then a fixed filler. Keys order as unsigned byte strings (lexicographically),
 * compared a big-endian word at a time; since distinct keys differ in their first word, a
 * comparison reads one word unless the keys are equal, in which case it compares all of them.
 * Every storage variant runs exactly this comparison on its own representation.
 *
 * <p>A value is {@code valueBytes} bytes copied from the writing thread's template, whose first
 * 8 bytes carry a per-thread sequence number.
 */
final class Keys {

    /** Big-endian long view of byte arrays (for on-heap keys). */
    static final VarHandle BE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Native-order long view of byte arrays (for copying value words out). */
    static final VarHandle LONG_ARRAY = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    /** Big-endian long at any offset of a segment (for off-heap keys). */
    static final ValueLayout.OfLong BE_LONG_LAYOUT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Bytes a get copies out of the value. */
    static final int COPY_OUT_BYTES = 16;

    /** Copies the probe's key into a new slice (privatized write of a new key). */
    static final SliceWriter<Probe, Boolean> WRITE_KEY = (slice, p) -> {
        MemorySegment.copy(p.keySeg, 0, slice, 0, p.key.length);
        return Boolean.TRUE;
    };

    /** Copies the probe's value template into the slice (new value, or overwrite in place). */
    static final SliceWriter<Probe, Boolean> WRITE_VALUE = (slice, p) -> {
        MemorySegment.copy(p.valueSeg, 0, slice, 0, p.value.length);
        return Boolean.TRUE;
    };

    /** A SOMAR reader's "copied" result (any non-null value). */
    static final Integer COPIED = 1;

    private static final Integer LESS = -1;
    private static final Integer EQUAL = 0;
    private static final Integer GREATER = 1;

    private Keys() {}

    /** A new key array for id {@code id}. */
    static byte[] key(long id, int keyBytes) {
        byte[] k = new byte[keyBytes];
        for (int i = 8; i < keyBytes; i++) k[i] = (byte) (i * 31 + 7);
        BE_LONG.set(k, 0, id);
        return k;
    }

    /** The key id of a key array. */
    static long id(byte[] key) {
        return (long) BE_LONG.get(key, 0);
    }

    /** The key id of an off-heap key. */
    static long id(MemorySegment key) {
        return key.get(BE_LONG_LAYOUT, 0);
    }

    /** Sign of (stored key - probe key) for an on-heap key (same loop as the off-heap one). */
    static int compare(byte[] stored, Probe p) {
        byte[] q = p.key;
        for (int off = 0; off < q.length; off += 8) {
            long x = (long) BE_LONG.get(stored, off);
            long y = (long) BE_LONG.get(q, off);
            if (x != y) return Long.compareUnsigned(x, y);
        }
        return 0;
    }

    /** Sign of (a - b) for two on-heap keys (the skiplist's key order). */
    static int compare(byte[] a, byte[] b) {
        for (int off = 0; off < b.length; off += 8) {
            long x = (long) BE_LONG.get(a, off);
            long y = (long) BE_LONG.get(b, off);
            if (x != y) return Long.compareUnsigned(x, y);
        }
        return 0;
    }

    /**
     * Sign of (stored key - probe key) for an off-heap key of the same length: big-endian words,
     * compared unsigned. Only the segment's own (always inlined) accessors touch the slice: a
     * SOMAR view that reaches a call the JIT does not inline escapes, and then cannot be
     * scalar-replaced at any read of that call site.
     */
    static int compare(MemorySegment stored, Probe p) {
        byte[] q = p.key;
        for (int off = 0; off < q.length; off += 8) {
            long x = stored.get(BE_LONG_LAYOUT, off);
            long y = (long) BE_LONG.get(q, off);
            if (x != y) return Long.compareUnsigned(x, y);
        }
        return 0;
    }

    /**
     * Copies the first {@link #COPY_OUT_BYTES} bytes of a value segment (two words; FFM arenas;
     * SOMAR readers do the same in {@link Probe.Reader}).
     */
    static void copyOut(MemorySegment value, byte[] out) {
        LONG_ARRAY.set(out, 0, value.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        LONG_ARRAY.set(out, 8, value.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
    }

    /** Copies the first {@link #COPY_OUT_BYTES} bytes of an on-heap value. */
    static void copyOut(byte[] value, byte[] out) {
        LONG_ARRAY.set(out, 0, (long) LONG_ARRAY.get(value, 0));
        LONG_ARRAY.set(out, 8, (long) LONG_ARRAY.get(value, 8));
    }

    /** {@link #compare(MemorySegment, Probe)} as a cached {@code Integer} (a SOMAR reader's result). */
    static Integer compareBoxed(MemorySegment stored, Probe p) {
        int c = compare(stored, p);
        return c < 0 ? LESS : c == 0 ? EQUAL : GREATER;
    }
}
