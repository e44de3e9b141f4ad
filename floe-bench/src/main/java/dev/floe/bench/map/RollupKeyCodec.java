package dev.floe.bench.map;

import dev.floe.map.OakCodecs;
import dev.floe.map.OakComparator;
import dev.floe.map.OakSerializer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The serialized form and order of {@link RollupRow} keys in the Oak index: the timestamp as 8
 * bytes, then every dimension as 4 bytes, all big-endian with the sign bit flipped, so that the
 * unsigned byte order of two serialized keys is the key order ({@link RollupRow#compareTo}).
 *
 * <p>Oak's order prefix ({@link OakComparator#prefixOf}), by {@link Prefix}:
 * <ul>
 *   <li>{@link Prefix#TIMESTAMP} ({@link #CODEC}): the first 8 bytes, i.e. the
 *       timestamp (sign-flipped, so unsigned order of prefixes is signed order of timestamps).
 *       All rows of one time bucket share it and are told apart by the dimensions, read
 *       off-heap.</li>
 *   <li>{@link Prefix#PACKED} ({@link #PACKED}; what the suite's {@code rollup} workload uses,
 *       being the prefix a user of the hook would write for a (time, dims) key): the timestamp in the top 42 bits, then the first
 *       four dimensions in 7 + 3 + 5 + 7 bits, each field saturating (see {@link #packed}), so
 *       that most rows of a bucket differ in their prefix and a search compares them on-heap.</li>
 * </ul>
 */
final class RollupKeyCodec implements OakSerializer<RollupRow>, OakComparator<RollupRow> {

    /** Which order prefix the codec gives Oak. */
    enum Prefix { TIMESTAMP, PACKED }

    /** The codec with the timestamp as the order prefix. */
    static final RollupKeyCodec CODEC = new RollupKeyCodec(Prefix.TIMESTAMP);
    /** The codec with the packed prefix. */
    static final RollupKeyCodec PACKED = new RollupKeyCodec(Prefix.PACKED);

    static RollupKeyCodec of(Prefix p) {
        return p == Prefix.PACKED ? PACKED : CODEC;
    }

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final Prefix prefix;

    private RollupKeyCodec(Prefix prefix) {
        this.prefix = prefix;
    }

    /** Bytes of a serialized key with {@code dims} dimensions. */
    static int keyBytes(int dims) {
        return 8 + 4 * dims;
    }

    @Override
    public void serialize(RollupRow row, MemorySegment target) {
        target.set(BE_LONG, 0, row.timestamp ^ Long.MIN_VALUE);
        int[] d = row.dims;
        for (int j = 0; j < d.length; j++) target.set(BE_INT, 8 + 4L * j, d[j] ^ Integer.MIN_VALUE);
    }

    @Override
    public RollupRow deserialize(MemorySegment source) {
        long ts = source.get(BE_LONG, 0) ^ Long.MIN_VALUE;
        int[] d = new int[(int) ((source.byteSize() - 8) / 4)];
        for (int j = 0; j < d.length; j++) d[j] = source.get(BE_INT, 8 + 4L * j) ^ Integer.MIN_VALUE;
        return new RollupRow(ts, d);
    }

    @Override
    public int sizeOf(RollupRow row) {
        return keyBytes(row.dims.length);
    }

    @Override
    public int compareKeys(RollupRow a, RollupRow b) {
        return a.compareTo(b);
    }

    /** Unsigned lexicographic order of the bytes (one vectorized mismatch). */
    @Override
    public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
        return OakCodecs.compareUnsigned(a, b);
    }

    @Override
    public int compareKeyAndSerializedKey(RollupRow key, MemorySegment s) {
        long size = s.byteSize();
        if (size < 8) return 1; // not a key of this index (a retired slice): any answer is discarded
        int c = Long.compare(key.timestamp, s.get(BE_LONG, 0) ^ Long.MIN_VALUE);
        if (c != 0) return c;
        int[] d = key.dims;
        long stored = (size - 8) / 4;
        long n = Math.min(d.length, stored);
        for (int j = 0; j < n; j++) {
            c = Integer.compare(d[j], s.get(BE_INT, 8 + 4L * j) ^ Integer.MIN_VALUE);
            if (c != 0) return c;
        }
        return Long.compare(d.length, stored);
    }

    @Override
    public long prefixOf(RollupRow key) {
        if (prefix == Prefix.TIMESTAMP) return key.timestamp ^ Long.MIN_VALUE;
        int[] d = key.dims;
        return packed(key.timestamp, d.length > 0 ? d[0] : 0, d.length > 1 ? d[1] : 0, d.length > 2 ? d[2] : 0,
                d.length > 3 ? d[3] : 0, d.length);
    }

    @Override
    public long prefixOfSerialized(MemorySegment s) {
        long size = s.byteSize();
        if (size < 8) return 0;
        if (prefix == Prefix.TIMESTAMP) return s.get(BE_LONG, 0);
        int dims = (int) ((size - 8) / 4);
        return packed(s.get(BE_LONG, 0) ^ Long.MIN_VALUE, dim(s, 0, dims), dim(s, 1, dims), dim(s, 2, dims),
                dim(s, 3, dims), dims);
    }

    private static int dim(MemorySegment s, int j, int dims) {
        return j < dims ? s.get(BE_INT, 8 + 4L * j) ^ Integer.MIN_VALUE : 0;
    }

    /** Field widths of the packed prefix: timestamp 42 bits, then dims 0..3 in 7, 3, 5, 7 bits (64 in all). */
    private static final int TS_BITS = 42, D0_BITS = 7, D1_BITS = 3, D2_BITS = 5, D3_BITS = 7;

    /**
     * The packed prefix: fields of the timestamp and the first four dims, most significant first.
     * A field of {@code k} bits holds {@code 0} for a negative value, {@code v + 1} for
     * {@code 0 <= v <= 2^k - 3} (exact), and {@code 2^k - 1} above (saturated); after the first
     * field that is not exact (or past the key's dims) every field is 0. Order: if two prefixes
     * differ, their first differing field is preceded only by equal exact fields (equal values),
     * and a field is non-decreasing in its value, so the key with the smaller prefix has the
     * smaller value there (or ends there: shorter keys order first): it is the smaller key.
     * Equal prefixes say nothing.
     */
    static long packed(long ts, int d0, int d1, int d2, int d3, int dims) {
        long tsMax = (1L << TS_BITS) - 1;
        long tf = ts < 0 ? 0 : ts <= tsMax - 2 ? ts + 1 : tsMax;
        long p = tf;
        boolean exact = tf != 0 && tf != tsMax;
        long f = exact && dims > 0 ? field(d0, D0_BITS) : 0;
        p = (p << D0_BITS) | f;
        exact = exact && dims > 0 && f != 0 && f != (1L << D0_BITS) - 1;
        f = exact && dims > 1 ? field(d1, D1_BITS) : 0;
        p = (p << D1_BITS) | f;
        exact = exact && dims > 1 && f != 0 && f != (1L << D1_BITS) - 1;
        f = exact && dims > 2 ? field(d2, D2_BITS) : 0;
        p = (p << D2_BITS) | f;
        exact = exact && dims > 2 && f != 0 && f != (1L << D2_BITS) - 1;
        f = exact && dims > 3 ? field(d3, D3_BITS) : 0;
        return (p << D3_BITS) | f;
    }

    /** A saturating field of {@code k} bits: 0 below 0, v + 1 while exact, all ones above. */
    private static long field(int v, int k) {
        long max = (1L << k) - 1;
        return v < 0 ? 0 : v <= max - 2 ? v + 1 : max;
    }
}
