package dev.floe.bench.defrag;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.PeriodicSampler;
import dev.floe.bench.harness.Result;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.SafepointPauses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code lru-churn} workload: the paper's Redis experiment (after Mesh). An {@link LruCache}
 * with a memory limit is filled past its limit with values of one size, then with values of
 * another size; then the cache keeps serving for the run's duration (95% gets of random live
 * keys, 5% puts of second-size values under random keys of the second fill, which leaves the mix
 * of sizes as the fills left it, as the paper's idle cache does), while RSS is sampled every 100 ms. Every put is followed by a get of a
 * random live key, so gets and puts are timed in every phase.
 *
 * <p>Sizes (the paper's script: 700,000 x 240 B, then 170,000 x 492 B, against 100 MiB) are the
 * full mode; quick mode divides counts and limit by {@value #QUICK_DIVISOR}.
 */
final class LruChurn {
    static final int SIZE1 = 240;
    static final int SIZE2 = 492;
    static final int FULL_FILL1 = 700_000;
    static final int FULL_FILL2 = 170_000;
    static final long FULL_LIMIT = 100L << 20;
    static final int QUICK_DIVISOR = 4;
    static final long SAMPLE_INTERVAL_NANOS = 100_000_000L;
    static final double PUT_SHARE = 0.05;
    /** Operations slower than this are checked against the JVM's own stop-the-world pauses. */
    static final long LONG_OP_NANOS = 1_000_000L;
    private static final long SEED = 0x6a11_0c8eL;

    /** Counts and limit of a mode. */
    record Sizes(int fill1, int fill2, long limit) {
        static Sizes of(Mode mode) {
            return mode == Mode.FULL ? new Sizes(FULL_FILL1, FULL_FILL2, FULL_LIMIT)
                    : new Sizes(FULL_FILL1 / QUICK_DIVISOR, FULL_FILL2 / QUICK_DIVISOR, FULL_LIMIT / QUICK_DIVISOR);
        }

        Sizes scaled(int divisor) {
            return new Sizes(fill1 / divisor, fill2 / divisor, limit / divisor);
        }
    }

    /** Runs the workload once on {@code store} with {@code settleSeconds} of serving after the fills. */
    static Sample measure(ValueStore store, Sizes sizes, double settleSeconds) {
        LruCache cache = new LruCache(store, sizes.limit(), sizes.fill1() + sizes.fill2(), SEED);
        SplittableRandom rnd = new SplittableRandom(SEED + 1);
        LatencyHistogram fillPut = new LatencyHistogram(), fillGet = new LatencyHistogram();
        LatencyHistogram servePut = new LatencyHistogram(), serveGet = new LatencyHistogram();
        long sink = 0;
        long peakStore;
        // serving operations over LONG_OP_NANOS ({start, end}), to sort out those a JVM-wide pause stalled
        List<long[]> longOps = new ArrayList<>();
        long shortMax = 0, maxOutsideJvmPauses, stalledByJvm = 0;
        // JFR starts before the fills, not at the serving phase: its start-up (class loading,
        // threads) would stall the first operations it is meant to judge
        SafepointPauses jvmPauses = SafepointPauses.start();
        long t0 = System.nanoTime();
        long fillEnd, end;
        // series 0: process RSS; series 1: the store's resident bytes
        PeriodicSampler sampler = PeriodicSampler.start("defrag-bench-rss", SAMPLE_INTERVAL_NANOS,
                MemorySnapshot::currentRss, store::residentBytes);
        try {
            int key = 0;
            for (int phase = 0; phase < 2; phase++) {
                int n = phase == 0 ? sizes.fill1() : sizes.fill2();
                int size = phase == 0 ? SIZE1 : SIZE2;
                for (int i = 0; i < n; i++, key++) {
                    long a = System.nanoTime();
                    cache.put(key, size);
                    long b = System.nanoTime();
                    sink += cache.get(cache.randomLiveKey());
                    long c = System.nanoTime();
                    fillPut.record(b - a);
                    fillGet.record(c - b);
                }
            }
            fillEnd = System.nanoTime();
            long deadline = fillEnd + (long) (settleSeconds * 1e9);
            long now = fillEnd;
            try (jvmPauses) {
                while (now < deadline) {
                    long t;
                    if (rnd.nextDouble() < PUT_SHARE) {
                        cache.put(sizes.fill1() + rnd.nextInt(sizes.fill2()), SIZE2);
                        t = System.nanoTime();
                        servePut.record(t - now);
                    } else {
                        sink += cache.get(cache.randomLiveKey());
                        t = System.nanoTime();
                        serveGet.record(t - now);
                    }
                    if (t - now > LONG_OP_NANOS) longOps.add(new long[] {now, t});
                    else shortMax = Math.max(shortMax, t - now);
                    now = t;
                }
                jvmPauses.close(); // every pause of the serving phase delivered
                maxOutsideJvmPauses = shortMax;
                for (long[] op : longOps) {
                    if (jvmPauses.overlaps(op[0], op[1])) stalledByJvm++;
                    else maxOutsideJvmPauses = Math.max(maxOutsideJvmPauses, op[1] - op[0]);
                }
            }
            end = now;
        } finally {
            sampler.close();
            jvmPauses.close();
        }
        List<Long> processRss = sampler.samples(0);
        List<Long> storeRss = sampler.samples(1);
        peakStore = storeRss.stream().mapToLong(Long::longValue).max().orElse(0);
        long finalStore = store.residentBytes();
        LatencyHistogram serve = new LatencyHistogram();
        serve.addAll(servePut);
        serve.addAll(serveGet);
        long ops = fillPut.count() + fillGet.count() + serve.count();
        double opsPerSecond = ops * 1e9 / (end - t0);

        Map<String, Double> extra = new LinkedHashMap<>();
        extra.put("final_rss_bytes", (double) finalStore);
        extra.put("p99_latency_ns", (double) serve.quantile(0.99));
        extra.put("max_pause_ns", (double) serve.max());
        extra.put("max_pause_outside_jvm_pauses_ns", (double) maxOutsideJvmPauses);
        extra.put("ops_stalled_by_jvm_pauses", (double) stalledByJvm);
        extra.put("peak_store_rss_bytes", (double) peakStore);
        extra.put("final_process_rss_bytes", (double) processRss.getLast());
        extra.put("fill_seconds", (fillEnd - t0) / 1e9);
        extra.put("serve_seconds", (end - fillEnd) / 1e9);
        putLatencies(extra, "serve_get", serveGet);
        putLatencies(extra, "serve_put", servePut);
        putLatencies(extra, "fill_get", fillGet);
        putLatencies(extra, "fill_put", fillPut);
        extra.put("evictions", (double) cache.evictions());
        extra.put("live_keys", (double) cache.liveCount());
        extra.put("value_bytes", (double) cache.usedBytes());
        extra.put("checksum_mod_1000", (double) Math.floorMod(sink, 1000));
        extra.putAll(store.extra());
        for (int i = 0; i < processRss.size(); i++) {
            extra.put(Result.seriesKey("rss_series", i), (double) processRss.get(i));
            extra.put(Result.seriesKey("store_rss_series", i), (double) storeRss.get(i));
        }
        MemorySnapshot memory = MemorySnapshot.capture(store.committedBytes(), store.liveBytes());
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put(Metric.OPS_PER_S.name(), opsPerSecond);
        metrics.put(DefragSuite.FINAL_RSS.name(), (double) finalStore);
        metrics.put(DefragSuite.P99.name(), (double) serve.quantile(0.99));
        metrics.put(DefragSuite.MAX_PAUSE.name(), (double) serve.max());
        return new Sample(metrics, memory, extra);
    }

    private static void putLatencies(Map<String, Double> extra, String prefix, LatencyHistogram h) {
        extra.put(prefix + "_p50_ns", (double) h.quantile(0.5));
        extra.put(prefix + "_p99_ns", (double) h.quantile(0.99));
        extra.put(prefix + "_max_ns", (double) h.max());
    }

    private LruChurn() {}
}
