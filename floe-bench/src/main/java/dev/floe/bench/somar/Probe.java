package dev.floe.bench.somar;

import dev.floe.reclaim.SliceReader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One thread's working state for one structure: the key it is looking for (as bytes, with its
 * id), its value template, where gets copy bytes to, the SOMAR readers bound to it, and the
 * result of the last list search. Never shared between threads.
 */
final class Probe {

    final byte[] key;
    final MemorySegment keySeg;
    final byte[] value;
    final MemorySegment valueSeg;
    final byte[] out = new byte[Keys.COPY_OUT_BYTES];
    /** The skiplist's probe key: a view of {@link #key}, used for gets and deletes only. */
    final SlKey slKey;
    /** Compares a stored key with this probe's key (each list node visit = one SOMAR read). */
    final Reader keyCompare = new Reader(this, true);
    /** Copies the first {@value Keys#COPY_OUT_BYTES} bytes of a value into {@link #out}; non-null on success. */
    final Reader copyOut = new Reader(this, false);

    long id;
    private long seq;
    /** Consumes what gets copied out, so that the copies cannot be optimised away. */
    long sink;

    /** Search result of {@link LlMap}: the last node before the key, and the first at or after it. */
    LlMap.Node pred;
    LlMap.Node curr;

    Probe(int keyBytes, int valueBytes) {
        if (keyBytes < 8 || keyBytes % 8 != 0 || valueBytes < Keys.COPY_OUT_BYTES) {
            throw new IllegalArgumentException("keys are whole words of at least 8 bytes, values at least "
                    + Keys.COPY_OUT_BYTES + " bytes: " + keyBytes + ", " + valueBytes);
        }
        this.key = Keys.key(0, keyBytes);
        this.keySeg = MemorySegment.ofArray(key);
        this.value = new byte[valueBytes];
        for (int i = 0; i < valueBytes; i++) value[i] = (byte) (i * 17 + 3);
        this.valueSeg = MemorySegment.ofArray(value);
        this.slKey = new SlKey(key);
    }

    /** Makes {@code id} the key this probe looks for. */
    Probe key(long id) {
        this.id = id;
        Keys.BE_LONG.set(key, 0, id);
        return this;
    }

    /** Stamps the value template with the next sequence number (once per put). */
    void nextValue() {
        Keys.BE_LONG.set(value, 0, ++seq);
    }

    /** The sequence number in the value template (the last put's). */
    long seq() {
        return seq;
    }

    /** Records a successful copy-out. */
    void consume() {
        sink += out[0] + out[Keys.COPY_OUT_BYTES - 1];
    }

    /**
     * The benchmark's only SOMAR reader class, for key comparisons and value copies alike. One
     * class keeps the reader call site inside {@code readOr} monomorphic: with two reader
     * classes, C2 declines to inline the rare one (one value read per thousand key reads) for
     * "low call site frequency", the read-only view escapes into that call, and the view
     * allocation is then kept for every read, key comparisons included (measured: ~40 KiB per
     * LL-map operation instead of ~20 B). For the same reason the value copy is written out
     * here rather than called: that branch runs once per thousand reads, and C2 inlines no
     * ordinary call from so cold a site; only the segment's and var handles' force-inlined
     * accessors touch the view.
     */
    static final class Reader implements SliceReader<Integer> {
        private final Probe probe;
        private final boolean compareKey;

        Reader(Probe probe, boolean compareKey) {
            this.probe = probe;
            this.compareKey = compareKey;
        }

        @Override
        public Integer read(MemorySegment slice) {
            if (compareKey) return Keys.compareBoxed(slice, probe);
            byte[] out = probe.out;
            Keys.LONG_ARRAY.set(out, 0, slice.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            Keys.LONG_ARRAY.set(out, 8, slice.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
            return Keys.COPIED;
        }
    }

    /** A new immutable skiplist key equal to the current probe key (stored by puts). */
    SlKey newSlKey() {
        return new SlKey(key.clone());
    }
}
