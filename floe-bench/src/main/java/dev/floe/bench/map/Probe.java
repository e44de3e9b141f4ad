package dev.floe.bench.map;

import dev.floe.reclaim.SliceReader;
import dev.floe.reclaim.SliceWriter;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One thread's working state: the key it works on (a reusable key array, re-pointed per
 * operation), its value template, and where reads leave what they read. Implementations copy the
 * key or the value when they store them; they never keep the probe's arrays. Never shared
 * between threads.
 */
final class Probe {

    final byte[] key;
    final byte[] value;
    /** Consumes what reads read, so that the JIT cannot drop the reads. */
    long sink;
    private long seq;

    /** Reads the value word at offset 0 of a slice into {@link #sink} (cslm-offheap). */
    final SliceReader<Object> readWord = slice -> {
        sink += slice.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        return Boolean.TRUE;
    };

    /** Copies a whole slice to a new array (cslm-offheap's get-copy). */
    static final SliceReader<byte[]> COPY = slice -> slice.toArray(ValueLayout.JAVA_BYTE);

    /** Writes the probe's value template into a private slice (cslm-offheap's new values). */
    static final SliceWriter<Probe, Object> WRITE_VALUE = (slice, p) -> {
        MemorySegment.copy(p.value, 0, slice, ValueLayout.JAVA_BYTE, 0, p.value.length);
        return Boolean.TRUE;
    };

    Probe(int keyBytes, int valueBytes) {
        if (valueBytes < 8) throw new IllegalArgumentException("values have at least 8 bytes: " + valueBytes);
        this.key = BenchKeys.key(0, keyBytes);
        this.value = new byte[valueBytes];
        for (int i = 8; i < valueBytes; i++) value[i] = (byte) (i * 17 + 3);
    }

    /** Makes {@code id} the key this probe works on. */
    Probe key(long id) {
        BenchKeys.setId(key, id);
        return this;
    }

    /** Stamps the value template with the next sequence number (once per put). */
    void nextValue() {
        BenchKeys.NATIVE_LONG.set(value, 0, ++seq);
    }

    /** Consumes the value word at offset 0 of an on-heap value. */
    void consume(byte[] v) {
        sink += (long) BenchKeys.NATIVE_LONG.get(v, 0);
    }

    /** Consumes a value word read elsewhere. */
    void consume(long word) {
        sink += word;
    }
}
