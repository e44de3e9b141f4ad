package dev.floe.bench.map;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;

/**
 * A Druid-style incremental index with rollup (the Oak paper's section 6, Druid's I²): every
 * incoming tuple is turned into a row key (time bucket + dimension ints, string dimensions through
 * the index's on-heap {@link RollupDictionary}s) and folded into that row's aggregates, inserting
 * the row if it is new. Two implementations over the same {@link RollupSchema}:
 * {@link RollupOakIndex} (I²-Oak: keys and values off-heap in an {@code OakMap}, one
 * {@code putIfAbsentComputeIfPresent} per tuple) and {@link RollupCslmIndex} (I²-legacy:
 * {@code ConcurrentSkipListMap} of row objects to on-heap aggregator objects, one {@code compute}
 * per tuple).
 *
 * <p>One ingesting thread per index (the adapters reuse per-index state); the maps themselves
 * are concurrent.
 */
abstract class RollupIndex implements AutoCloseable {

    /** The implementation names, the same as the map suite's. */
    static final String OAK = "floe-oak";
    static final String CSLM = "cslm";

    final RollupSchema schema;
    /** One dictionary per string dimension. */
    final RollupDictionary[] dictionaries;

    RollupIndex(RollupSchema schema) {
        this.schema = schema;
        this.dictionaries = new RollupDictionary[RollupTuples.STRING_DIMS.length];
        for (int j = 0; j < dictionaries.length; j++) dictionaries[j] = new RollupDictionary();
    }

    /** A new, empty index of implementation {@code impl}; {@code offheapBudget} caps Oak's allocator. */
    static RollupIndex open(String impl, RollupSchema schema, long offheapBudget) {
        return open(impl, schema, offheapBudget, RollupKeyCodec.Prefix.TIMESTAMP);
    }

    /** As {@link #open(String, RollupSchema, long)}, with Oak's order prefix {@code prefix}. */
    static RollupIndex open(String impl, RollupSchema schema, long offheapBudget, RollupKeyCodec.Prefix prefix) {
        return switch (impl) {
            case OAK -> new RollupOakIndex(schema, offheapBudget, RollupKeyCodec.of(prefix));
            case CSLM -> new RollupCslmIndex(schema);
            default -> throw new IllegalArgumentException("rollup has no implementation '" + impl + "'; choose "
                    + OAK + " or " + CSLM);
        };
    }

    /** Folds tuple {@code i} of {@code t} into its row. */
    abstract void add(RollupTuples t, int i);

    /** Number of rows (distinct keys). */
    abstract long rows();

    /** A copy of every row and its aggregates, in key order (tests; not for the measured path). */
    abstract NavigableMap<RollupRow, Aggregates> snapshot();

    /** Off-heap bytes held by the rows (Oak's live key and value blocks, headers included); 0 on-heap. */
    long offHeapFootprint() {
        return 0;
    }

    /** Implementation-specific figures for the report. */
    Map<String, Double> extra() {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int j = 0; j < dictionaries.length; j++) {
            m.put("dict_" + RollupTuples.STRING_DIMS[j], (double) dictionaries[j].size());
        }
        return m;
    }

    @Override
    public abstract void close();

    /** The aggregates of one row, in schema order: {@code Long}s and the sketch's {@code byte[]}. */
    record Aggregates(Object[] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Aggregates a && Arrays.deepEquals(values, a.values);
        }

        @Override
        public int hashCode() {
            return Arrays.deepHashCode(values);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("[");
            for (Object v : values) {
                if (b.length() > 1) b.append(", ");
                b.append(v instanceof byte[] r ? "sketch~" + Math.round(RollupSketch.estimate(r)) : v);
            }
            return b.append(']').toString();
        }

        long count() {
            return (Long) values[0];
        }
    }
}
