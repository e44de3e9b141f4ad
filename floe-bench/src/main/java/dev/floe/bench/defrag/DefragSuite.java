package dev.floe.bench.defrag;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Comparison;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Ratio;
import dev.floe.bench.harness.Result;
import dev.floe.bench.harness.SafepointPauses;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.TargetCheck;
import dev.floe.bench.harness.Trial;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code defrag} suite: ALASKA/ANCHORAGE's fragmentation experiment ({@link LruChurn}) with
 * handles and the defragmenting service on ({@code handles-defrag}) and off
 * ({@code handles-nodefrag}), and with fixed Nova slices ({@code nova-fixed}).
 *
 * <p>Metrics: {@code final_rss_bytes} (resident bytes of the store's allocator region at the end
 * of the run, mincore: the memory the service is responsible for; the process RSS, which adds
 * the JVM's own hundred-odd MiB, is in {@code extra.final_process_rss_bytes} and
 * {@code extra.rss_series}), {@code p99_latency_ns} and {@code max_pause_ns} (p99 and maximum
 * latency of the gets and puts served after the fills, while the service defragments).
 * Ratios: {@code handles-defrag} against the two others on all three. Goals ({@link #targets}):
 * final RSS at least 40% below the service-off run, p99 at most 10% worse, and no pause above
 * 1 ms attributable to the service: the maximum operation latency with the service on at most
 * 1 ms above the service-off maximum, both taken over the operations that no JVM stop-the-world
 * pause overlapped (JFR's safepoint operations, {@link SafepointPauses}: a GC pause stalls every
 * thread whether the service runs or not; {@code max_pause_ns} keeps the raw maximum). No
 * application operation waits for the service by construction (the handle area has no locks, see
 * {@code AnchorageHeap}); what this check still catches is the service's CPU and memory traffic,
 * the code paths its first passes make the JIT recompile, and on a loaded machine scheduling
 * noise.
 *
 * <p>Isolation: one worker JVM per implementation runs its three runs in turn (each run builds
 * and closes its own allocator, so the store's resident bytes start at zero every run). Its
 * warm-up (2 s in quick mode) repeats scaled-down runs, each followed by one defragmentation pass
 * for {@code handles-defrag}, so that the JIT has compiled the service's code before the measured
 * runs. With 0.3 s of warm-up, C1 and C2 compiler threads still held both cores for milliseconds
 * at a time during the measured runs' passes ({@code perf sched timehist}), stalling the
 * application thread for whole 4 ms scheduler ticks: JIT warm-up, not the steady state the
 * latency goals are about.
 */
public final class DefragSuite implements Suite {
    public static final String LRU_CHURN = "lru-churn";
    static final String DEFRAG = "handles-defrag";
    static final String NODEFRAG = "handles-nodefrag";
    static final String NOVA = "nova-fixed";

    static final Metric FINAL_RSS = Metric.lowerIsBetter("final_rss_bytes", 1 << 20);
    static final Metric P99 = Metric.lowerIsBetter("p99_latency_ns", 10);
    static final Metric MAX_PAUSE = Metric.lowerIsBetter("max_pause_ns", 1000);

    private static final double RSS_GOAL = 0.6;
    private static final double P99_GOAL = 1.1;
    private static final double PAUSE_GOAL_NS = 1e6;
    /** Extra: the maximum latency over serving operations that no JVM stop-the-world pause overlapped. */
    static final String OUTSIDE_JVM_PAUSES = "max_pause_outside_jvm_pauses_ns";

    @Override
    public String name() {
        return "defrag";
    }

    @Override
    public String description() {
        return "handles + concurrent defragmentation (ALASKA/ANCHORAGE): RSS after an LRU cache changes value size";
    }

    @Override
    public List<String> impls() {
        return List.of(DEFRAG, NODEFRAG, NOVA);
    }

    @Override
    public Settings defaults(Mode mode) {
        if (mode == Mode.FULL) return new Settings(mode, 30, 2, 3, List.of(1), impls());
        return new Settings(mode, 2.5, 2.0, 3, List.of(1), impls());
    }

    @Override
    public Map<String, Object> config(Settings s) {
        LruChurn.Sizes z = LruChurn.Sizes.of(s.mode());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fill1_values", z.fill1());
        m.put("fill1_value_bytes", LruChurn.SIZE1);
        m.put("fill2_values", z.fill2());
        m.put("fill2_value_bytes", LruChurn.SIZE2);
        m.put("limit_bytes", z.limit());
        m.put("eviction", "Redis approximated LRU, " + LruCache.SAMPLES + " samples");
        m.put("serve_s", s.durationSeconds());
        m.put("serve_mix", "95% get of random live keys / 5% put of a " + LruChurn.SIZE2
                + "-byte value under a random key of the second fill");
        m.put("rss_sample_ms", LruChurn.SAMPLE_INTERVAL_NANOS / 1_000_000);
        m.put("final_rss_bytes", "resident bytes of the store's allocator region (mincore) at the end");
        m.put("latency", "p99_latency_ns and max_pause_ns over the ops served after the fills");
        m.put("defrag_config", "paper defaults: F 1.05..1.4, O_ub 5% (of CPU time), alpha 10%, wake 500 ms; service thread in SCHED_IDLE");
        m.put("isolation", "one worker JVM per implementation, runs interleaved, fresh allocator per run");
        m.put("runs", s.runs());
        return m;
    }

    /** The LRU churn has one application thread; --threads 1 is the only thread count it takes. */
    @Override
    public Map<String, String> unusableOptions(BenchOptions given) {
        if (given.threads() == null || given.threads().stream().allMatch(t -> t == 1)) return Map.of();
        return Map.of("--threads", LRU_CHURN + " runs one application thread (plus the service's)");
    }

    @Override
    public List<Cell> cells(Settings s) {
        return List.of(new Cell(LRU_CHURN, 1, Isolation.SHARED_WORKER));
    }

    @Override
    public List<Comparison> comparisons(Cell cell, List<String> impls) {
        List<Comparison> out = new ArrayList<>();
        if (!impls.contains(DEFRAG)) return out;
        for (String vs : impls) {
            if (vs.equals(DEFRAG)) continue;
            for (Metric m : List.of(FINAL_RSS, P99, MAX_PAUSE)) out.add(new Comparison(DEFRAG, vs, m));
        }
        return out;
    }

    @Override
    public Sample measure(Trial trial) throws Exception {
        if (!trial.workload().equals(LRU_CHURN)) {
            throw new IllegalArgumentException("defrag has no workload '" + trial.workload() + "'");
        }
        LruChurn.Sizes sizes = LruChurn.Sizes.of(trial.mode());
        if (trial.warmupSeconds() > 0) {
            long until = System.nanoTime() + (long) (trial.warmupSeconds() * 1e9);
            do {
                // scaled-down runs, each followed by one pass of the service (for handles-defrag),
                // which the measured run's 0.5 s wake-up would otherwise leave to the measured run
                // to compile: warm-up compiles the service's code as well as the workload's
                try (ValueStore warm = open(trial.impl())) {
                    LruChurn.measure(warm, sizes.scaled(20), 0.01);
                    warm.runBackgroundWorkOnce();
                }
            } while (System.nanoTime() < until);
        }
        try (ValueStore store = open(trial.impl())) {
            return LruChurn.measure(store, sizes, trial.durationSeconds());
        }
    }

    private static ValueStore open(String impl) {
        return switch (impl) {
            case DEFRAG -> new HandleStore(true);
            case NODEFRAG -> new HandleStore(false);
            case NOVA -> new NovaStore();
            default -> throw new IllegalArgumentException("defrag has no implementation '" + impl + "'");
        };
    }

    @Override
    public List<TargetCheck> targets(SuiteReport report) {
        List<TargetCheck> checks = new ArrayList<>();
        ratio(report, FINAL_RSS).ifPresent(r -> checks.add(new TargetCheck("final-rss",
                DEFRAG + " final RSS at least 40% below " + NODEFRAG, LRU_CHURN, 1, DEFRAG, NODEFRAG,
                "final_rss_fraction", 1 / r.medianRatio(), "<=", RSS_GOAL)));
        ratio(report, P99).ifPresent(r -> checks.add(new TargetCheck("p99-latency",
                DEFRAG + " p99 latency at most 10% worse than " + NODEFRAG, LRU_CHURN, 1, DEFRAG, NODEFRAG,
                "p99_latency_factor", 1 / r.medianRatio(), "<=", P99_GOAL)));
        Optional<Result> on = report.result(LRU_CHURN, 1, DEFRAG);
        Optional<Result> off = report.result(LRU_CHURN, 1, NODEFRAG);
        if (on.isPresent() && off.isPresent()) {
            double extra = on.get().extra().get(OUTSIDE_JVM_PAUSES) - off.get().extra().get(OUTSIDE_JVM_PAUSES);
            checks.add(new TargetCheck("service-pause",
                    "no pause above 1 ms attributable to the service (max latency of ops no JVM safepoint "
                    + "stalled, on - off)", LRU_CHURN, 1,
                    DEFRAG, NODEFRAG, "max_pause_excess_ns", extra, "<=", PAUSE_GOAL_NS));
        }
        return checks;
    }

    private static Optional<Ratio> ratio(SuiteReport report, Metric m) {
        return report.ratio(LRU_CHURN, 1, DEFRAG, NODEFRAG, m.name());
    }
}
