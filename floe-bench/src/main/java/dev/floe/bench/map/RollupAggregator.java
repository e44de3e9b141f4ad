package dev.floe.bench.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One aggregate of the rollup value (a Druid {@code AggregatorFactory}) in both of Druid's forms:
 * <ul>
 *   <li>a buffer aggregator (Druid's {@code BufferAggregator}): stateless, it initializes and
 *       updates its field at {@link #offset} of a row's value bytes, here in the Oak value slice
 *       through the {@code putIfAbsentComputeIfPresent} writer (I²-Oak);</li>
 *   <li>an on-heap aggregator object per row ({@link #factorize}, Druid's {@code Aggregator}),
 *       updated in place inside {@code ConcurrentSkipListMap.compute} (I²-legacy).</li>
 * </ul>
 * Both forms apply the same arithmetic, so identical input gives identical aggregates
 * ({@link #get}). Numbers are stored in native byte order.
 */
abstract class RollupAggregator {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    final String name;
    /** The metric column it reads ({@link RollupTuples#metrics}), or -1. */
    final int column;
    /** Where its field starts in the value. */
    final int offset;

    private RollupAggregator(String name, int column, int offset) {
        this.name = name;
        this.column = column;
        this.offset = offset;
    }

    /** Bytes of its field in the value. */
    abstract int size();

    /** Writes the identity (an empty aggregate) into the value. */
    abstract void init(MemorySegment value);

    /** Folds tuple {@code i} into the value, in place. */
    abstract void aggregate(MemorySegment value, RollupTuples t, int i);

    /** The aggregate held by the value ({@code Long} or {@code byte[]}). */
    abstract Object get(MemorySegment value);

    /** A new on-heap aggregator, holding the identity. */
    abstract OnHeap factorize();

    /** The on-heap form: one object per aggregate per row. */
    abstract static class OnHeap {
        abstract void aggregate(RollupTuples t, int i);

        abstract Object get();
    }

    // ---- the aggregates ------------------------------------------------------------------------

    /** Number of tuples rolled into the row. */
    static final class Count extends RollupAggregator {
        Count(String name, int offset) {
            super(name, -1, offset);
        }

        @Override int size() { return 8; }

        @Override void init(MemorySegment v) { v.set(LONG, offset, 0); }

        @Override void aggregate(MemorySegment v, RollupTuples t, int i) { v.set(LONG, offset, v.get(LONG, offset) + 1); }

        @Override Object get(MemorySegment v) { return v.get(LONG, offset); }

        @Override OnHeap factorize() { return new Agg(); }

        static final class Agg extends OnHeap {
            long count;

            @Override void aggregate(RollupTuples t, int i) { count++; }

            @Override Object get() { return count; }
        }
    }

    /**
     * A metric folded into one long with an associative operation from an identity: sum, min and
     * max (Druid's longSum / longMin / longMax). One class, one on-heap object per aggregator per
     * row, as Druid's on-heap index has.
     */
    static final class LongFold extends RollupAggregator {
        private final long identity;
        private final java.util.function.LongBinaryOperator op;

        private LongFold(String name, int column, int offset, long identity, java.util.function.LongBinaryOperator op) {
            super(name, column, offset);
            this.identity = identity;
            this.op = op;
        }

        static LongFold sum(String name, int column, int offset) {
            return new LongFold(name, column, offset, 0, Long::sum);
        }

        static LongFold min(String name, int column, int offset) {
            return new LongFold(name, column, offset, Long.MAX_VALUE, Math::min);
        }

        static LongFold max(String name, int column, int offset) {
            return new LongFold(name, column, offset, Long.MIN_VALUE, Math::max);
        }

        @Override int size() { return 8; }

        @Override void init(MemorySegment v) { v.set(LONG, offset, identity); }

        @Override void aggregate(MemorySegment v, RollupTuples t, int i) {
            v.set(LONG, offset, op.applyAsLong(v.get(LONG, offset), t.metrics[column][i]));
        }

        @Override Object get(MemorySegment v) { return v.get(LONG, offset); }

        @Override OnHeap factorize() { return new Agg(this); }

        static final class Agg extends OnHeap {
            private final LongFold spec;
            long value;

            Agg(LongFold spec) {
                this.spec = spec;
                this.value = spec.identity;
            }

            @Override void aggregate(RollupTuples t, int i) { value = spec.op.applyAsLong(value, t.metrics[spec.column][i]); }

            @Override Object get() { return value; }
        }
    }

    /** Distinct count of a metric (user ids) in a {@link RollupSketch} of {@code bytes} bytes. */
    static final class HyperUnique extends RollupAggregator {
        private final int bytes;
        private final int p;

        HyperUnique(String name, int column, int offset, int bytes) {
            super(name, column, offset);
            this.bytes = bytes;
            this.p = RollupSketch.log2Registers(bytes);
        }

        @Override int size() { return bytes; }

        @Override void init(MemorySegment v) { v.asSlice(offset, bytes).fill((byte) 0); }

        @Override void aggregate(MemorySegment v, RollupTuples t, int i) {
            RollupSketch.update(v, offset, p, RollupSketch.hash(t.metrics[column][i]));
        }

        @Override Object get(MemorySegment v) {
            return v.asSlice(offset, bytes).toArray(ValueLayout.JAVA_BYTE);
        }

        @Override OnHeap factorize() { return new Agg(column, bytes, p); }

        static final class Agg extends OnHeap {
            final int column;
            final int p;
            final byte[] registers;

            Agg(int column, int bytes, int p) {
                this.column = column;
                this.p = p;
                this.registers = new byte[bytes];
            }

            @Override void aggregate(RollupTuples t, int i) {
                RollupSketch.update(registers, p, RollupSketch.hash(t.metrics[column][i]));
            }

            @Override Object get() { return registers.clone(); }
        }
    }
}
