package dev.floe.bench.map;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rollup index's schema (Druid's {@code IncrementalIndexSchema}): the query granularity the
 * timestamps are truncated to, the dimensions ({@link RollupTuples#STRING_DIMS} as dictionary ids,
 * then {@link RollupTuples#INT_DIMS}) and the aggregates of the value:
 * <pre>
 *   key   (32 B)  timestamp | country | device | browser | page | status | version
 *   value         count | sum(bytes) | sum(latency) | min(latency) | max(latency) | unique users (sketch)
 *                 8       8            8              8              8              sketchBytes (Druid: 1,024)
 * </pre>
 */
final class RollupSchema {

    /** Druid's common rollup granularity for this kind of stream is a second to a minute; one second here. */
    static final long DEFAULT_GRANULARITY_MS = 1_000;

    final long granularityMs;
    final int sketchBytes;
    final RollupAggregator[] aggregators;
    final int dims;
    final int keyBytes;
    final int valueBytes;

    RollupSchema(long granularityMs, int sketchBytes) {
        if (granularityMs < 1) throw new IllegalArgumentException("granularity must be at least 1 ms: " + granularityMs);
        this.granularityMs = granularityMs;
        this.sketchBytes = sketchBytes;
        List<RollupAggregator> a = new ArrayList<>();
        int off = 0;
        a.add(new RollupAggregator.Count("count", off));
        a.add(RollupAggregator.LongFold.sum("sum_bytes", RollupTuples.BYTES, off += 8));
        a.add(RollupAggregator.LongFold.sum("sum_latency", RollupTuples.LATENCY, off += 8));
        a.add(RollupAggregator.LongFold.min("min_latency", RollupTuples.LATENCY, off += 8));
        a.add(RollupAggregator.LongFold.max("max_latency", RollupTuples.LATENCY, off += 8));
        a.add(new RollupAggregator.HyperUnique("unique_users", RollupTuples.USER, off += 8, sketchBytes));
        this.aggregators = a.toArray(new RollupAggregator[0]);
        int size = 0;
        for (RollupAggregator g : aggregators) size += g.size();
        this.valueBytes = size;
        this.dims = RollupTuples.STRING_DIMS.length + RollupTuples.INT_DIMS.length;
        this.keyBytes = RollupKeyCodec.keyBytes(dims);
    }

    /** The default: one-second granularity, Druid's 1,024-byte hyperUnique sketch. */
    static RollupSchema standard() {
        return new RollupSchema(DEFAULT_GRANULARITY_MS, RollupSketch.DRUID_BYTES);
    }

    /** Raw bytes of one row: serialized key + value. */
    int rawRowBytes() {
        return keyBytes + valueBytes;
    }

    /** The timestamp of tuple {@code ts}'s time bucket. */
    long bucket(long ts) {
        return Math.floorDiv(ts, granularityMs) * granularityMs;
    }

    /** The key of tuple {@code i}: bucket, string dims through the dictionaries, int dims. */
    RollupRow row(RollupTuples t, int i, RollupDictionary[] dictionaries) {
        int s = RollupTuples.STRING_DIMS.length;
        int[] d = new int[dims];
        for (int j = 0; j < s; j++) d[j] = dictionaries[j].id(t.strings[j][i]);
        for (int j = 0; j < RollupTuples.INT_DIMS.length; j++) d[s + j] = t.ints[j][i];
        return new RollupRow(bucket(t.timestamps[i]), d);
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("granularity_ms", granularityMs);
        m.put("key_bytes", keyBytes);
        m.put("value_bytes", valueBytes);
        m.put("sketch_bytes", sketchBytes);
        List<String> aggs = new ArrayList<>();
        for (RollupAggregator g : aggregators) aggs.add(g.name);
        m.put("aggregates", aggs);
        return m;
    }
}
