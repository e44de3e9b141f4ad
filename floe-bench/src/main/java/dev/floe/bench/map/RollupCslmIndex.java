package dev.floe.bench.map;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiFunction;

/**
 * I²-legacy: the rollup index as Druid's {@code OnheapIncrementalIndex} keeps it, on the heap: a
 * {@link ConcurrentSkipListMap} from {@link RollupRow} objects (natural order) to the row's
 * {@code Aggregator[]}, one on-heap aggregator object per aggregate (the sketch one holding its
 * {@code byte[]} registers). Per tuple one {@code compute}: a new row gets freshly factorized
 * aggregators, then every aggregator folds the tuple in, in place (the function returns the same
 * array, so the map's CAS of the value is a no-op).
 *
 * <p>Lighter than Druid's: Druid keeps the aggregator arrays in a separate map by row index,
 * wraps each sketch in a collector object over a {@code ByteBuffer} and gives each aggregator a
 * selector; none of that is modelled, so this index's overhead is a lower bound of Druid's.
 */
final class RollupCslmIndex extends RollupIndex {

    private final ConcurrentSkipListMap<RollupRow, RollupAggregator.OnHeap[]> facts = new ConcurrentSkipListMap<>();
    private final RollupAggregator[] aggregators;
    private RollupTuples t;
    private int i;
    /** compute's function: factorize on a new row, then fold the current tuple into every aggregator. */
    private final BiFunction<RollupRow, RollupAggregator.OnHeap[], RollupAggregator.OnHeap[]> fold;

    RollupCslmIndex(RollupSchema schema) {
        super(schema);
        this.aggregators = schema.aggregators;
        this.fold = (row, aggs) -> {
            if (aggs == null) {
                aggs = new RollupAggregator.OnHeap[aggregators.length];
                for (int k = 0; k < aggs.length; k++) aggs[k] = aggregators[k].factorize();
            }
            for (RollupAggregator.OnHeap a : aggs) a.aggregate(t, i);
            return aggs;
        };
    }

    @Override
    void add(RollupTuples t, int i) {
        RollupRow row = schema.row(t, i, dictionaries);
        this.t = t;
        this.i = i;
        facts.compute(row, fold);
    }

    @Override
    long rows() {
        return facts.size();
    }

    @Override
    NavigableMap<RollupRow, Aggregates> snapshot() {
        NavigableMap<RollupRow, Aggregates> out = new TreeMap<>();
        for (Map.Entry<RollupRow, RollupAggregator.OnHeap[]> e : facts.entrySet()) {
            RollupAggregator.OnHeap[] aggs = e.getValue();
            Object[] v = new Object[aggs.length];
            for (int k = 0; k < aggs.length; k++) v[k] = aggs[k].get();
            out.put(e.getKey(), new Aggregates(v));
        }
        return out;
    }

    @Override
    public void close() {
        facts.clear();
        t = null;
    }
}
