package dev.floe.bench.map;

import dev.floe.bench.harness.JvmConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rollup workload: both indexes produce identical rows and aggregates (and the right ones),
 * the key codec keeps the row order, the dictionaries are stable, the sketch estimates, and the
 * overhead accounting is sane.
 */
class RollupTest {

    private static final long MIB = 1L << 20;

    @ParameterizedTest
    @EnumSource(RollupTuples.Profile.class)
    void oakAndCslmProduceIdenticalAggregates(RollupTuples.Profile profile) {
        RollupTuples t = RollupTuples.generate(new RollupTuples.Spec(20_000, 7, 50_000, 2_000, profile));
        RollupSchema schema = RollupSchema.standard();
        NavigableMap<RollupRow, RollupIndex.Aggregates> oak, cslm;
        try (RollupIndex o = RollupIndex.open(RollupIndex.OAK, schema, 64 * MIB);
             RollupIndex c = RollupIndex.open(RollupIndex.CSLM, schema, 64 * MIB)) {
            addAll(t, o, c);
            assertEquals(c.rows(), o.rows());
            oak = o.snapshot();
            cslm = c.snapshot();
            assertTrue(o.offHeapFootprint() >= o.rows() * schema.rawRowBytes(), "off-heap holds at least the raw rows");
            assertEquals(0, c.offHeapFootprint());
        }
        assertEquals(cslm.size(), oak.size());
        assertEquals(cslm, oak, "identical rows and aggregates, in the same order");
        assertEquals(oak.keySet().stream().toList(), cslm.keySet().stream().toList());
        assertTrue(oak.size() < t.size, "some tuples rolled up");

        // and they are the right aggregates: recompute them naively
        RollupDictionary[] dicts = dictionaries();
        Map<RollupRow, long[]> expect = new HashMap<>();
        Map<RollupRow, HashSet<Long>> users = new HashMap<>();
        for (int i = 0; i < t.size; i++) {
            RollupRow row = schema.row(t, i, dicts);
            long b = t.metrics[RollupTuples.BYTES][i], l = t.metrics[RollupTuples.LATENCY][i];
            long[] e = expect.computeIfAbsent(row, k -> new long[] {0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE});
            e[0]++;
            e[1] += b;
            e[2] += l;
            e[3] = Math.min(e[3], l);
            e[4] = Math.max(e[4], l);
            users.computeIfAbsent(row, k -> new HashSet<>()).add(t.metrics[RollupTuples.USER][i]);
        }
        assertEquals(expect.size(), oak.size());
        long tuples = 0;
        for (Map.Entry<RollupRow, RollupIndex.Aggregates> e : oak.entrySet()) {
            long[] want = expect.get(e.getKey());
            Object[] got = e.getValue().values();
            for (int k = 0; k < want.length; k++) assertEquals(want[k], (long) (Long) got[k], e.getKey() + " aggregate " + k);
            int distinct = users.get(e.getKey()).size();
            double est = RollupSketch.estimate((byte[]) got[5]);
            assertTrue(Math.abs(est - distinct) <= Math.max(2, 0.1 * distinct), e.getKey() + ": " + est + " vs " + distinct);
            tuples += e.getValue().count();
        }
        assertEquals(t.size, tuples, "every tuple counted once");
    }

    @Test
    void smallSketchAndCoarseGranularityAlsoAgree() {
        RollupTuples t = RollupTuples.generate(RollupTuples.Spec.of(10_000, 3));
        RollupSchema schema = new RollupSchema(60_000, 256);
        assertEquals(32 + 40 + 256, schema.rawRowBytes());
        assertOakAgreesWithCslm(t, schema, RollupKeyCodec.Prefix.TIMESTAMP);
    }

    @Test
    void dictionaryMappingIsStable() {
        RollupDictionary d = new RollupDictionary();
        assertEquals(0, d.id("us"));
        assertEquals(1, d.id("de"));
        assertEquals(0, d.id(new String("us")), "equal strings, same id");
        assertEquals(1, d.lookup("de"));
        assertEquals(-1, d.lookup("fr"));
        assertEquals("de", d.value(1));
        assertEquals(2, d.size());

        // the same seed gives the same tuples, hence the same ids in any index
        RollupTuples a = RollupTuples.generate(RollupTuples.Spec.of(5_000, 11));
        RollupTuples b = RollupTuples.generate(RollupTuples.Spec.of(5_000, 11));
        assertArrayEquals(a.timestamps, b.timestamps);
        for (int m = 0; m < RollupTuples.METRICS.length; m++) assertArrayEquals(a.metrics[m], b.metrics[m]);
        RollupDictionary[] da = dictionaries(), db = dictionaries();
        RollupSchema s = RollupSchema.standard();
        for (int i = 0; i < a.size; i++) {
            RollupRow ra = s.row(a, i, da), rb = s.row(b, i, db);
            assertEquals(ra, rb);
            for (int j = 0; j < RollupTuples.STRING_DIMS.length; j++) {
                assertEquals(a.strings[j][i], da[j].value(ra.dims[j]), "id maps back to its value");
            }
        }
        assertNotEquals(RollupTuples.generate(RollupTuples.Spec.of(100, 12)).metrics[RollupTuples.USER][5],
                RollupTuples.generate(RollupTuples.Spec.of(100, 11)).metrics[RollupTuples.USER][5]);
    }

    @ParameterizedTest
    @EnumSource(RollupKeyCodec.Prefix.class)
    void keyCodecKeepsTheRowOrder(RollupKeyCodec.Prefix prefix) {
        SplittableRandom r = new SplittableRandom(5);
        RollupKeyCodec codec = RollupKeyCodec.of(prefix);
        try (Arena arena = Arena.ofConfined()) {
            for (int n = 0; n < 20_000; n++) {
                RollupRow a = randomRow(r), b = r.nextInt(4) == 0 ? a : randomRow(r);
                MemorySegment sa = arena.allocate(codec.sizeOf(a)), sb = arena.allocate(codec.sizeOf(b));
                codec.serialize(a, sa);
                codec.serialize(b, sb);
                int want = Integer.signum(a.compareTo(b));
                assertEquals(want, Integer.signum(codec.compareSerializedKeys(sa, sb)), a + " vs " + b);
                assertEquals(want, Integer.signum(codec.compareKeyAndSerializedKey(a, sb)), a + " vs " + b);
                assertEquals(codec.prefixOf(a), codec.prefixOfSerialized(sa));
                int p = Long.compareUnsigned(codec.prefixOf(a), codec.prefixOf(b));
                if (p != 0) assertEquals(Integer.signum(p), want, "prefix order: " + a + " vs " + b);
                assertEquals(a, codec.deserialize(sa));
            }
        }
    }

    /** Rows near the packed prefix's field edges: small and saturating dims, varying lengths, odd timestamps. */
    private static RollupRow randomRow(SplittableRandom r) {
        int[] d = new int[r.nextInt(8) == 0 ? r.nextInt(7) : 6];
        for (int j = 0; j < d.length; j++) {
            d[j] = switch (r.nextInt(5)) {
                case 0 -> r.nextInt();
                case 1 -> r.nextInt(-2, 3);
                case 2 -> (1 << new int[] {7, 3, 5, 7, 7, 7}[j]) - 4 + r.nextInt(4);
                default -> r.nextInt(4);
            };
        }
        long ts = switch (r.nextInt(4)) {
            case 0 -> r.nextLong();
            case 1 -> (1L << 42) - 4 + r.nextInt(6);
            case 2 -> r.nextInt(-2, 2);
            default -> RollupTuples.EPOCH_MS + r.nextInt(3) * 1000L;
        };
        return new RollupRow(ts, d);
    }

    @Test
    void packedPrefixSeparatesRowsOfABucket() {
        RollupKeyCodec codec = RollupKeyCodec.PACKED;
        long ts = RollupTuples.EPOCH_MS;
        long a = codec.prefixOf(new RollupRow(ts, new int[] {1, 2, 3, 4, 200, 100}));
        long b = codec.prefixOf(new RollupRow(ts, new int[] {1, 2, 3, 5, 200, 100}));
        long c = codec.prefixOf(new RollupRow(ts, new int[] {1, 2, 3, 5, 404, 100}));
        assertTrue(Long.compareUnsigned(a, b) < 0);
        assertEquals(b, c, "the prefix holds four dims");
        assertTrue(Long.compareUnsigned(b, codec.prefixOf(new RollupRow(ts + 1000, new int[] {0, 0, 0, 0, 0, 0}))) < 0);
    }

    @Test
    void packedPrefixIndexAgreesToo() {
        RollupTuples t = RollupTuples.generate(RollupTuples.Spec.of(20_000, 5));
        assertOakAgreesWithCslm(t, RollupSchema.standard(), RollupKeyCodec.Prefix.PACKED);
    }

    @ParameterizedTest
    @ValueSource(ints = {256, 1024})
    void sketchEstimatesDistinctCounts(int bytes) {
        int p = RollupSketch.log2Registers(bytes);
        assertEquals(bytes * 2, 1 << p);
        for (int n : new int[] {10, 1_000, 100_000}) {
            byte[] regs = new byte[bytes];
            for (long u = 0; u < n; u++) {
                RollupSketch.update(regs, p, RollupSketch.hash(u * 7919));
                RollupSketch.update(regs, p, RollupSketch.hash(u * 7919)); // duplicates change nothing
            }
            double err = Math.abs(RollupSketch.estimate(regs) - n) / n;
            assertTrue(err < 0.15, bytes + " B, " + n + " distinct: error " + err);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {RollupIndex.OAK, RollupIndex.CSLM})
    void overheadAccountingIsSane(String impl) {
        RollupTuples t = RollupTuples.generate(RollupTuples.Spec.of(40_000, 9));
        RollupSchema schema = RollupSchema.standard();
        RollupIngest.Outcome o = RollupIngest.run(impl, t, schema, 128 * MIB, RollupKeyCodec.Prefix.TIMESTAMP, 5_000, 0);
        assertTrue(!o.outOfMemory());
        assertTrue(o.rows() > 1_000 && o.rows() < t.size, "rows " + o.rows());
        assertEquals(o.rows() * (32 + 1064), o.rawBytes());
        assertTrue(o.usedBytes() > o.rawBytes(), "used " + o.usedBytes() + " raw " + o.rawBytes());
        assertTrue(o.overhead() > 0 && o.overhead() < 1.5, "overhead " + o.overhead());
        assertTrue(o.heapBytes() > 0, "dictionaries and metadata (or everything) on the heap");
        if (impl.equals(RollupIndex.OAK)) {
            assertTrue(o.offheapBytes() >= o.rawBytes(), "off-heap holds the raw rows");
            assertTrue(o.heapBytes() < o.rows() * 400L, "Oak's heap holds metadata only: " + o.heapBytes());
        } else {
            assertEquals(0, o.offheapBytes());
        }
        assertTrue(o.tuplesPerSecond() > 0);
        var s = o.toSample();
        assertEquals(o.overhead(), s.metric(RollupIngest.METADATA_OVERHEAD.name()), 1e-12);
        assertEquals((double) o.rows(), s.extra().get("rows"));
    }

    /** Adds every tuple to each index, tuple by tuple. */
    private static void addAll(RollupTuples t, RollupIndex... indexes) {
        for (int i = 0; i < t.size; i++) {
            for (RollupIndex x : indexes) x.add(t, i);
        }
    }

    /** Oak with order prefix {@code prefix} and the CSLM index, fed the same tuples, hold the same rows and aggregates. */
    private static void assertOakAgreesWithCslm(RollupTuples t, RollupSchema schema, RollupKeyCodec.Prefix prefix) {
        try (RollupIndex o = RollupIndex.open(RollupIndex.OAK, schema, 64 * MIB, prefix);
             RollupIndex c = RollupIndex.open(RollupIndex.CSLM, schema, 64 * MIB)) {
            addAll(t, o, c);
            assertEquals(c.snapshot(), o.snapshot());
        }
    }

    private static RollupDictionary[] dictionaries() {
        RollupDictionary[] d = new RollupDictionary[RollupTuples.STRING_DIMS.length];
        for (int j = 0; j < d.length; j++) d[j] = new RollupDictionary();
        return d;
    }

    /**
     * A rollup run's JVMs get the input's heap on top of the budget's share, both implementations
     * alike; the other fresh-JVM cell (ingest) and the shared workers get none.
     */
    @Test
    void rollupJvmsGetTheInputsHeapOnTopAlike() {
        MapSuite suite = new MapSuite();
        dev.floe.bench.harness.Mode quick = dev.floe.bench.harness.Mode.QUICK;
        MapSizing z = MapSizing.of(quick, 2);
        long input = RollupIngest.inputHeapBytes(quick, z);
        assertTrue(input >= (long) RollupIngest.tuplesFor(quick, z) * RollupTuples.HEAP_BYTES_PER_TUPLE, "covers the input");
        for (String impl : new String[] {RollupIndex.OAK, RollupIndex.CSLM}) {
            long share = impl.equals(RollupIndex.CSLM) ? z.budgetBytes() : z.splitHeap();
            assertTrue(suite.jvmArgs(impl, quick, 2, JvmConfig.DEFAULT, "rollup").contains("-Xmx" + ((share + input) >> 20) + "m"), impl);
            assertTrue(suite.jvmArgs(impl, quick, 2, JvmConfig.DEFAULT, "ingest").contains("-Xmx" + (share >> 20) + "m"), impl);
            assertEquals(suite.jvmArgs(impl, quick, 2, JvmConfig.DEFAULT), suite.jvmArgs(impl, quick, 2, JvmConfig.DEFAULT, "ingest"), impl);
        }
    }
}
