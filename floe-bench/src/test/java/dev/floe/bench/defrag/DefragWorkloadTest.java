package dev.floe.bench.defrag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Sample;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DefragWorkloadTest {

    @Test
    void histogramQuantilesAreWithinTheirBucketPrecision() {
        LatencyHistogram h = new LatencyHistogram();
        SplittableRandom rnd = new SplittableRandom(1);
        long[] values = new long[100_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = 1 + rnd.nextLong(5_000_000);
            h.record(values[i]);
        }
        java.util.Arrays.sort(values);
        for (double q : new double[] {0.5, 0.9, 0.99}) {
            long exact = values[(int) Math.ceil(q * values.length) - 1];
            long got = h.quantile(q);
            assertTrue(got >= exact && got <= exact * 1.02 + 1, q + ": " + got + " vs " + exact);
        }
        assertEquals(values[values.length - 1], h.max());
        assertEquals(values.length, h.count());
    }

    @Test
    void lruCacheStaysUnderItsLimitAndEvictsOldEntriesFirst() {
        try (ValueStore store = new NovaStore()) {
            LruCache cache = new LruCache(store, 100 * 240, 1000, 3);
            for (int k = 0; k < 1000; k++) {
                cache.put(k, 240);
                assertTrue(cache.usedBytes() <= 100 * 240);
                if (k >= 100) cache.get(k - 1); // keep the previous key hot
            }
            assertEquals(100, cache.liveCount());
            assertEquals(900, cache.evictions());
            assertEquals(240, cache.sizeOf(999));
            assertEquals(240, cache.sizeOf(998), "a recently used key survived");
            assertEquals(100 * 240, cache.usedBytes());
        }
    }

    @Test
    void aScaledDownRunFillsPastTheLimitAndReportsTheContractMetrics() throws Exception {
        try (ValueStore store = new HandleStore(true)) {
            Sample s = LruChurn.measure(store, LruChurn.Sizes.of(Mode.QUICK).scaled(50), 0.2);
            for (String m : new String[] {"ops_per_s", "final_rss_bytes", "p99_latency_ns", "max_pause_ns"}) {
                assertTrue(s.metric(m) > 0, m);
            }
            assertTrue(s.extra().get("evictions") > 0);
            assertTrue(s.extra().containsKey("rss_series[0]") && s.extra().containsKey("store_rss_series[1]"));
            double outside = s.extra().get(DefragSuite.OUTSIDE_JVM_PAUSES);
            assertTrue(outside > 0 && outside <= s.metric("max_pause_ns"), "max outside JVM pauses: " + outside);
        }
    }
}
