package dev.floe.bench.map;

import java.util.Arrays;

/**
 * A row key of the rollup index (Druid's {@code IncrementalIndexRow}, simplified): the timestamp
 * truncated to the index's granularity, then the dimension values as ints (dictionary ids of the
 * string dimensions, then the integer dimensions). Ordered by timestamp, then the dims
 * lexicographically (signed), which is also the order of its serialized form
 * ({@link RollupKeyCodec}). The CSLM index stores these objects as its keys; the Oak index uses
 * them as lookup keys and serializes them on insert.
 *
 * <p>Druid's own row keeps {@code Object[] dims} with one {@code int[]} per dimension (multi-value
 * strings) plus a row index and a schema reference; this flat {@code int[]} is lighter, so the
 * on-heap (I²-legacy) overhead measured here is a lower bound of Druid's.
 */
final class RollupRow implements Comparable<RollupRow> {

    final long timestamp;
    final int[] dims;

    RollupRow(long timestamp, int[] dims) {
        this.timestamp = timestamp;
        this.dims = dims;
    }

    @Override
    public int compareTo(RollupRow o) {
        int c = Long.compare(timestamp, o.timestamp);
        return c != 0 ? c : Arrays.compare(dims, o.dims);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RollupRow r && timestamp == r.timestamp && Arrays.equals(dims, r.dims);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(timestamp) * 31 + Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
        return timestamp + Arrays.toString(dims);
    }
}
