package dev.floe.bench.map;

import dev.floe.map.OakMap;
import dev.floe.map.OakSerializer;
import dev.floe.map.OakWriteBuffer;
import dev.floe.map.ZeroCopyMap;
import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * I²-Oak: the rollup index on Floe's {@link OakMap}, as the Oak paper's Druid integration does
 * it. Keys are {@link RollupRow}s serialized by {@link RollupKeyCodec} (order prefix: the
 * timestamp, or optionally the packed prefix); a value is the row's aggregates laid out by the schema's buffer aggregators. Per
 * tuple one {@code zc().putIfAbsentComputeIfPresent(row, seed, writer)}: a new row's value is
 * serialized straight from the tuple (each aggregate's identity, then the tuple folded in: the
 * "value" handed to Oak is a reusable seed pointing at the tuple, so no on-heap aggregate is
 * built), an existing row is updated in place by one writer that runs every buffer aggregator on
 * the locked value, atomically.
 *
 * <p>The map has an allocator of its own capped at the off-heap budget (built as
 * {@code OakMap.builder(...).budget(...).exactValueSize(...)} does, kept here to report its
 * statistics). Every row's value has the schema's size, so the allocator has an exact size class
 * for it (1,088-byte blocks for the 1,064-byte rows instead of the standard 1,280), as Druid's
 * off-heap index sizes its rows' aggregator buffers exactly and the Oak paper's allocator carves
 * exact sizes. The dictionaries and the map's chunks and index stay on-heap.
 */
final class RollupOakIndex extends RollupIndex {

    private static final AtomicInteger MAPS = new AtomicInteger();

    /** The value handed to Oak on insert: tuple {@code i} of {@code t}, serialized as a one-tuple row. */
    static final class Seed {
        RollupTuples t;
        int i;
    }

    private final FloeAllocator allocator;
    private final OakMap<RollupRow, Object> map;
    private final ZeroCopyMap<RollupRow, Object> zc;
    private final RollupAggregator[] aggregators;
    private final Seed seed = new Seed();
    /** The in-place update: every buffer aggregator folds the seed's tuple into the locked value. */
    private final Consumer<OakWriteBuffer> writer;

    RollupOakIndex(RollupSchema schema, long offheapBudget, RollupKeyCodec keys) {
        super(schema);
        this.aggregators = schema.aggregators;
        long region = Math.max(64L << 20, Long.highestOneBit(offheapBudget) << 2);
        this.allocator = FloeAllocator.builder()
                .name("bench-rollup-oak-" + MAPS.incrementAndGet())
                .budget(offheapBudget)
                .preTouch(offheapBudget) // as the JVMs' heaps are (-XX:+AlwaysPreTouch)
                .regionSize(region)
                .exactSizeClasses(OakMap.valueBlockBytes(schema.valueBytes, false)) // every row has one size
                .build();
        try {
            this.map = OakMap.builder(keys, new ValueCodec(schema), keys)
                    .nova(new Nova(allocator))
                    .exactValueSize(schema.valueBytes)
                    .build();
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
        this.zc = map.zc();
        RollupAggregator[] aggs = aggregators;
        Seed s = seed;
        this.writer = w -> {
            MemorySegment v = w.segment();
            for (RollupAggregator g : aggs) g.aggregate(v, s.t, s.i);
        };
    }

    @Override
    void add(RollupTuples t, int i) {
        RollupRow row = schema.row(t, i, dictionaries);
        seed.t = t;
        seed.i = i;
        zc.putIfAbsentComputeIfPresent(row, seed, writer);
    }

    @Override
    long rows() {
        return map.size();
    }

    @Override
    NavigableMap<RollupRow, Aggregates> snapshot() {
        NavigableMap<RollupRow, Aggregates> out = new TreeMap<>();
        for (Map.Entry<RollupRow, Object> e : map.entrySet()) out.put(e.getKey(), (Aggregates) e.getValue());
        return out;
    }

    @Override
    long offHeapFootprint() {
        return map.offHeapFootprint();
    }

    @Override
    Map<String, Double> extra() {
        Map<String, Double> m = super.extra();
        m.put("offheap_live_bytes", (double) allocator.stats().liveBytes());
        m.put("offheap_committed_bytes", (double) allocator.stats().committedBytes());
        return m;
    }

    long offheapLiveBytes() {
        return allocator.stats().liveBytes();
    }

    long offheapCommittedBytes() {
        return allocator.stats().committedBytes();
    }

    @Override
    public void close() {
        try {
            map.close();
        } finally {
            allocator.close();
        }
    }

    /**
     * Values: serializes a {@link Seed} as a new row (identities, then the tuple folded in);
     * deserializes to {@link Aggregates} (legacy reads, tests).
     */
    private static final class ValueCodec implements OakSerializer<Object> {
        private final RollupSchema schema;

        ValueCodec(RollupSchema schema) {
            this.schema = schema;
        }

        @Override
        public void serialize(Object value, MemorySegment target) {
            if (!(value instanceof Seed s)) throw new IllegalArgumentException("rollup values are written from tuples");
            for (RollupAggregator g : schema.aggregators) {
                g.init(target);
                g.aggregate(target, s.t, s.i);
            }
        }

        @Override
        public Object deserialize(MemorySegment source) {
            RollupAggregator[] aggs = schema.aggregators;
            Object[] v = new Object[aggs.length];
            for (int k = 0; k < aggs.length; k++) v[k] = aggs[k].get(source);
            return new Aggregates(v);
        }

        @Override
        public int sizeOf(Object value) {
            return schema.valueBytes;
        }
    }
}
