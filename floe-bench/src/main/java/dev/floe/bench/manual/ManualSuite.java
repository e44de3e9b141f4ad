package dev.floe.bench.manual;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Comparison;
import dev.floe.bench.harness.GcTotals;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.JitWarmUp;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Ratio;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.TargetCheck;
import dev.floe.bench.harness.Trial;
import dev.floe.memory.MemoryStats;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code manual} suite: the Snowflake paper's ASP.NET caching benchmark (section 5) in Java.
 * A shared {@link SlidingCache} receives a fixed number of requests with uniform keys; a miss
 * allocates a payload of 256 B, 2 KiB or 4 KiB ({@code cache-256b}, {@code cache-2k},
 * {@code cache-4k}); entries expire after a sliding expiration. {@code manual} keeps payloads as
 * Snowflake manual objects ({@link ManualPayloadCache}), {@code gc-g1} as {@code byte[]} under G1
 * ({@link HeapPayloadCache}), each in a fresh JVM per run with the same RAM budget
 * ({@link CacheSizing}). Expiration runs on the driver's virtual clock ({@link CacheDriver}), so
 * both implementations do the same work.
 *
 * <p>Each run: a JIT warm-up ({@link JitWarmUp}: rounds of the same request loop for half the
 * requests on a throw-away cache over an eighth of the keys with a tenth of the expiration, so
 * it misses as often, until the JIT compiler is quiet, within {@link CacheSizing} bounds),
 * {@code System.gc()},
 * a wait until the resident set stops falling ({@link PeakRss}), the kernel's peak RSS reset,
 * then the measured run on a fresh cache. Metrics: {@code ops_per_s} = requests / time to completion,
 * {@code peak_rss_bytes} = the process's peak resident set ({@code VmHWM}) since the reset (the
 * whole process where the reset is not available: {@code extra.peak_rss_reset = 0}),
 * {@code gc_pause_ms} = collector pause time during the measured run (the GC MXBeans' pause
 * collectors).
 * {@code extra}: the two memory metrics again (results carry only ops/s as a top-level summary),
 * {@code time_s}, {@code gc_count}, {@code warmup_rounds}, {@code jit_ms} (JIT compilation time
 * during the measured run), hits, misses, evictions, entries at the end,
 * {@code payload_mismatches} (must be 0), and for {@code manual} the heap's epoch, ejections and
 * objects still waiting at the end. Ratios: {@code manual} against {@code gc-g1} on the three
 * metrics. Goals: {@link #targets}.
 */
public final class ManualSuite implements Suite {
    static final String MANUAL = CacheImpl.MANUAL.label();
    static final String GC_G1 = CacheImpl.GC_G1.label();

    static final Metric PEAK_RSS = Metric.lowerIsBetter("peak_rss_bytes", 1 << 20);
    /** Pauses below 1 ms count as 1 ms in ratios (a near-zero total would give unbounded ratios). */
    static final Metric GC_PAUSE = Metric.lowerIsBetter("gc_pause_ms", 1.0);

    /** Workload name to payload bytes. */
    private static final Map<String, Integer> PAYLOADS = payloads();

    private static Map<String, Integer> payloads() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("cache-256b", 256);
        m.put("cache-2k", 2048);
        m.put("cache-4k", 4096);
        return m;
    }

    private long runCounter;

    @Override
    public String name() {
        return "manual";
    }

    @Override
    public String description() {
        return "Snowflake caching benchmark (paper 5): manual (owner/shield off-heap payloads) vs gc-g1 (byte[] payloads)";
    }

    @Override
    public List<String> impls() {
        return CacheImpl.labels();
    }

    @Override
    public Settings defaults(Mode mode) {
        if (mode == Mode.FULL) return new Settings(mode, 1, 0, 3, Settings.fullThreads(), impls());
        return new Settings(mode, 1, 0, 3, List.of(1, 2), impls());
    }

    @Override
    public Map<String, Object> config(Settings s) {
        CacheSizing z = CacheSizing.of(s.mode(), s.commonBudgets());
        Map<String, Object> m = new LinkedHashMap<>(z.toJson());
        m.put("payload_bytes", PAYLOADS);
        m.put("scaling", s.mode() == Mode.QUICK
                ? "quick: 300,000 requests over 30,000 keys, 40 ms sliding expiration, 512 MiB RAM budget per JVM "
                  + "(paper: 4M requests, a large key space, 1 s)"
                : "full: the paper's 4M requests and 1 s sliding expiration, over 500,000 keys, 6 GiB RAM budget per JVM");
        m.put("paper", "Snowflake (OOPSLA 2017) section 5, ASP.NET Caching: threads share a cache, N requests with keys "
                + "uniform over a large key space, allocate on miss, sliding expiration 1 s, payloads 256 B / 2 KiB / "
                + "4 KiB; time to completion, peak working set, GC pauses");
        m.put("runs_measure", "one fresh JVM per run: JIT warm-up (rounds of half the requests over an eighth of the keys, a "
                + "tenth of the expiration, on throw-away caches, until two rounds in a row compile less than "
                + JitWarmUp.QUIET_COMPILE_MS + " ms, after " + z.warmupMinSeconds() + " s at least and " + z.warmupMaxSeconds()
                + " s at most, at least one round), System.gc(), a wait until RSS stops falling (G1 uncommits concurrently), peak RSS reset "
                + "(/proc/self/clear_refs), then the measured run: time to "
                + "completion of all requests, peak RSS since the reset, GC pauses during it; --duration and --warmup are "
                + "refused (config.duration_s and warmup_s are placeholders)");
        m.put("request", "manual: one shield per request (paper 3.5 client code), tryDefend the entry (which embeds "
                + "its payload's owner), else a new entry (createInto, filled) + defend + put; gc-g1: new byte[] + fill "
                + "on miss; both box the request's key once and use that key object for the lookup, the put and the "
                + "removals, read 8 bytes of the payload "
                + "and check them; expired entries removed on access and by a scan every half expiration period");
        return m;
    }

    /** A run is the time to completion of a fixed number of requests after a JIT-quiet warm-up. */
    @Override
    public Map<String, String> unusableOptions(BenchOptions given) {
        Map<String, String> m = new LinkedHashMap<>();
        if (given.duration() != null) m.put("--duration", "a run times a fixed number of requests to completion");
        if (given.warmup() != null) m.put("--warmup", "a run warms up until the JIT is quiet, within fixed bounds");
        return m;
    }

    @Override
    public List<Cell> cells(Settings s) {
        List<Cell> cells = new ArrayList<>();
        for (String w : PAYLOADS.keySet()) {
            for (int t : s.threads()) cells.add(new Cell(w, t, Isolation.FRESH_JVM));
        }
        return cells;
    }

    @Override
    public List<Comparison> comparisons(Cell cell, List<String> impls) {
        if (!impls.contains(MANUAL) || !impls.contains(GC_G1)) return List.of();
        return List.of(new Comparison(MANUAL, GC_G1, Metric.OPS_PER_S),
                new Comparison(MANUAL, GC_G1, PEAK_RSS),
                new Comparison(MANUAL, GC_G1, GC_PAUSE));
    }

    @Override
    public List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm) {
        return CacheImpl.byLabel(impl).jvmArgs(CacheSizing.of(mode, jvm));
    }

    /** The suite compares manual memory with a collector under one RAM budget: it takes --gc, --heap and --offheap. */
    @Override
    public boolean comparesCollectors() {
        return true;
    }

    /** gc-g1 stands for G1: under --gc it runs only in G1's configuration. */
    @Override
    public Optional<Collector> collectorOf(String impl) {
        return CacheImpl.byLabel(impl) == CacheImpl.GC_G1 ? Optional.of(Collector.G1) : Optional.empty();
    }

    @Override
    public Sample measure(Trial trial) throws Exception {
        CacheImpl impl = CacheImpl.byLabel(trial.impl());
        Integer payload = PAYLOADS.get(trial.workload());
        if (payload == null) throw new IllegalArgumentException("no workload " + trial.workload() + " in " + PAYLOADS.keySet());
        CacheSizing z = CacheSizing.of(trial.mode(), trial.jvm());
        Map<String, Double> extra = new LinkedHashMap<>();
        long seed = ++runCounter;
        int warmupRounds = JitWarmUp.run(z.warmupMinSeconds(), z.warmupMaxSeconds(), round -> { // small throw-away caches
            try (SlidingCache<?> warm = impl.open(z, payload, z.warmupExpirationMs())) {
                CacheDriver.run(warm, trial.threads(), z.warmupRequests(), z.warmupKeys(), -seed * 1_000 - round);
            }
        });
        extra.put("warmup_rounds", (double) warmupRounds);
        System.gc();
        PeakRss.awaitSettled();
        extra.put("peak_rss_reset", PeakRss.reset() ? 1.0 : 0.0);
        long jitBefore = JitWarmUp.compileMillis();
        GcTotals gcBefore = GcTotals.now();
        double seconds;
        MemorySnapshot memory;
        try (SlidingCache<?> cache = impl.open(z, payload, z.expirationMs())) {
            seconds = CacheDriver.run(cache, trial.threads(), z.requests(), z.keys(), seed);
            extra.put("hits", (double) cache.hits.sum());
            extra.put("misses", (double) cache.misses.sum());
            extra.put("evictions", (double) cache.evictions.sum());
            extra.put("entries_at_end", (double) cache.size());
            extra.put("payload_mismatches", (double) cache.mismatches.sum());
            if (cache instanceof ManualPayloadCache m) {
                MemoryStats st = m.allocator().stats();
                memory = MemorySnapshot.capture(st.committedBytes(), st.liveBytes());
                extra.put("epoch", (double) m.heap().epoch());
                extra.put("ejections", (double) m.heap().ejections());
                extra.put("waiting_at_end", (double) m.heap().waiting());
            } else {
                memory = MemorySnapshot.capture(0, 0);
            }
        }
        GcTotals gc = GcTotals.now().minus(gcBefore);
        extra.put("jit_ms", (double) Math.max(0, JitWarmUp.compileMillis() - jitBefore));
        extra.put("time_s", seconds);
        extra.put("gc_count", (double) gc.count());
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put(Metric.OPS_PER_S.name(), z.requests() / seconds);
        metrics.put(PEAK_RSS.name(), (double) PeakRss.peak());
        metrics.put(GC_PAUSE.name(), (double) gc.millis());
        extra.put(PEAK_RSS.name(), metrics.get(PEAK_RSS.name())); // results show the metrics' medians here
        extra.put(GC_PAUSE.name(), metrics.get(GC_PAUSE.name()));
        return new Sample(metrics, memory, extra);
    }

    /** A goal on the median ratio of manual to gc-g1 (above 1: manual better). */
    private record Goal(String target, String metric, double min, List<String> workloads, String description) {}

    private static final List<Goal> GOALS = List.of(
            new Goal("peak-rss-vs-gc-g1", PEAK_RSS.name(), 2.0, List.of("cache-2k", "cache-4k"),
                    MANUAL + " peak RSS at most half of gc-g1's"),
            new Goal("gc-pause-vs-gc-g1", GC_PAUSE.name(), 3.0, List.copyOf(PAYLOADS.keySet()),
                    MANUAL + " total GC pause at least 3x lower than gc-g1's"),
            new Goal("time-vs-gc-g1", Metric.OPS_PER_S.name(), 1.0, List.copyOf(PAYLOADS.keySet()),
                    MANUAL + " time to completion no worse than gc-g1's"));

    /**
     * The goals, at every thread count measured: manual's peak RSS at most half of
     * gc-g1's on cache-2k and cache-4k; total GC pause at least 3x lower and time to completion
     * no worse (ops/s ratio at least 1) on every payload size.
     */
    @Override
    public List<TargetCheck> targets(SuiteReport report) {
        List<TargetCheck> checks = new ArrayList<>();
        for (Goal g : GOALS) {
            for (Ratio r : report.ratios()) {
                if (r.impl().equals(MANUAL) && r.vs().equals(GC_G1) && r.metric().equals(g.metric())
                        && g.workloads().contains(r.workload())) {
                    checks.add(new TargetCheck(g.target(), g.description(), r.workload(), r.threads(), MANUAL, GC_G1,
                            g.metric() + "_ratio", r.medianRatio(), ">=", g.min()));
                }
            }
        }
        return checks;
    }
}
