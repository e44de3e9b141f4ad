package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a {@link Suite} with resolved {@link Settings} and produces its {@link SuiteReport}.
 *
 * <p>Schedule: cells in the suite's order; within a cell, run 1 of every implementation, then
 * run 2 of every implementation, and so on (A B C A B C …), so that run {@code i} of two
 * implementations are neighbours in time and their ratio is a fair pair (see {@link Stats}).
 * The first run of each implementation in a cell is preceded by the warm-up.
 *
 * <p>Isolation: every implementation measures in its own JVM. {@link Isolation#SHARED_WORKER}
 * cells use one long-lived worker per implementation for the whole suite, so its JIT profile
 * only ever sees that implementation (a shared JVM would make the allocator call sites
 * megamorphic for everybody) and its RSS is its own. {@link Isolation#FRESH_JVM} cells start a
 * new JVM for every run. With {@code --gc}, {@code --heap} or {@code --offheap} the unit is a
 * {@link Variant}, an implementation in one {@link JvmConfig}: each has its own worker, they
 * interleave like implementations, and ratios pair variants of the same configuration.
 */
public final class SuiteRunner {

    /** Rough cost of starting a JVM and running a one-shot trial in it, for the time estimate. */
    private static final double FRESH_RUN_SECONDS = 2.0;
    /** Rough per-run overhead of a shared worker (set-up, tear-down, protocol). */
    private static final double RUN_OVERHEAD_SECONDS = 0.1;

    private final Progress progress;

    public SuiteRunner(Progress progress) {
        this.progress = progress;
    }

    /**
     * Checks, before anything runs, what {@link #run} would otherwise find out only when it
     * reaches this suite (in the main job, after the suites before it): the suite's cells
     * (including a workload filter read from a system property, {@link WorkloadFilter}), that at
     * least one selected implementation has runs in one of them, and that the suite's
     * configuration and worker JVM options can be computed (system properties such as
     * {@code floe.bench.map.range} are parsed there).
     *
     * @throws IllegalArgumentException with a message for the user when the suite would fail at
     *                                  once or run nothing
     */
    public static void check(Suite suite, Settings settings) {
        List<Cell> cells = suite.cells(settings);
        if (cells.isEmpty()) throw new IllegalArgumentException("suite " + suite.name() + " has no workload to run");
        List<Variant> variants = settings.variants();
        if (cells.stream().allMatch(c -> measuredIn(suite, c, variants).isEmpty())) {
            throw new IllegalArgumentException("suite " + suite.name() + " would run nothing: none of "
                    + String.join(", ", settings.impls()) + " measures any of its selected workloads "
                    + cells.stream().map(Cell::workload).distinct().toList());
        }
        suite.config(settings);
        for (Variant v : variants) {
            workerArgs(suite, v, settings.mode(), variants.size(), null);
            for (Cell c : cells) {
                if (c.isolation() == Isolation.FRESH_JVM && suite.measures(v.impl(), c)) {
                    workerArgs(suite, v, settings.mode(), variants.size(), c.workload());
                }
            }
        }
    }

    /** Runs every cell of the suite and summarises it, goals included. */
    public SuiteReport run(Suite suite, Settings settings) throws BenchmarkException {
        long startedNanos = System.nanoTime();
        List<Cell> cells = suite.cells(settings);
        List<Variant> variants = settings.variants();
        int steps = 0;
        for (Cell cell : cells) steps += suite.runs(cell, settings) * measuredIn(suite, cell, variants).size();
        progress.begin(suite.name(), steps, estimateSeconds(suite, cells, settings));
        List<Result> results = new ArrayList<>();
        List<Ratio> ratios = new ArrayList<>();
        Map<String, WorkerProcess> workers = new LinkedHashMap<>();
        try {
            for (Cell cell : cells) {
                List<Variant> measured = measuredIn(suite, cell, variants);
                Map<String, List<Sample>> samples = new LinkedHashMap<>();
                int runs = suite.runs(cell, settings);
                for (int run = 0; run < runs; run++) {
                    for (Variant v : measured) {
                        Trial trial = new Trial(suite.name(), settings.mode(), v.impl(), cell.workload(), cell.threads(),
                                run == 0 ? settings.warmupSeconds() : 0, settings.durationSeconds(), v.jvm());
                        String label = cell.workload() + " t=" + cell.threads() + " " + v.label()
                                + " " + (run + 1) + "/" + runs;
                        progress.stepStarted(label);
                        Sample s = execute(suite, cell, v, trial, workers, variants.size());
                        progress.stepDone(label, Units.rate(s.metric(Metric.OPS_PER_S.name())) + " ops/s");
                        samples.computeIfAbsent(v.label(), k -> new ArrayList<>()).add(s);
                    }
                }
                samples.forEach((name, done) -> results.add(Result.of(cell, name, done)));
                ratios.addAll(ratios(suite, cell, measured, samples));
            }
        } finally {
            workers.values().forEach(WorkerProcess::close);
            progress.end();
        }
        Map<String, Object> config = new LinkedHashMap<>(settings.toJson());
        config.putAll(suite.config(settings));
        config.put("jvm_args", jvmArgs(suite, settings));
        // Wall time of the whole suite (forks, fills, warm-ups included): the main job's budget.
        config.put("wall_seconds", Math.round((System.nanoTime() - startedNanos) / 1e8) / 10.0);
        SuiteReport report = new SuiteReport(suite.name(), config, results, ratios, List.of());
        return report.withTargets(suite.targets(report));
    }

    /**
     * The suite's comparisons for a cell within each JVM configuration: both sides of a ratio
     * always ran in the same configuration (a collector baseline in its own collector's).
     */
    private static List<Ratio> ratios(Suite suite, Cell cell, List<Variant> measured, Map<String, List<Sample>> samples) {
        Map<JvmConfig, Map<String, String>> labelsByConfig = new LinkedHashMap<>();
        for (Variant v : measured) labelsByConfig.computeIfAbsent(v.jvm(), k -> new LinkedHashMap<>()).put(v.impl(), v.label());
        List<Ratio> out = new ArrayList<>();
        for (Map<String, String> labels : labelsByConfig.values()) {
            for (Comparison c : suite.comparisons(cell, List.copyOf(labels.keySet()))) {
                String impl = labels.get(c.impl()), vs = labels.get(c.vs());
                out.add(new Ratio(cell.workload(), cell.threads(), impl, vs, c.metric().name(),
                        Stats.medianRatio(values(samples.get(impl), c.metric()), values(samples.get(vs), c.metric()),
                                c.metric())));
            }
        }
        return out;
    }

    /** The worker JVM options of each variant (shared workers; a fresh JVM's may add to them), for the config. */
    private static Map<String, Object> jvmArgs(Suite suite, Settings settings) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Variant v : settings.variants()) {
            m.put(v.label(), String.join(" ", workerArgs(suite, v, settings.mode(), settings.variants().size(), null)));
        }
        return m;
    }

    /**
     * The JVM options of a variant's worker ({@code workload} {@code null}) or of the fresh JVM of
     * one trial: the suite's, with the configuration's collector unless the implementation is a
     * collector baseline.
     */
    static List<String> workerArgs(Suite suite, Variant v, Mode mode, int liveWorkers, String workload) {
        List<String> args = workload == null
                ? suite.jvmArgs(v.impl(), mode, liveWorkers, v.jvm())
                : suite.jvmArgs(v.impl(), mode, liveWorkers, v.jvm(), workload);
        return suite.collectorOf(v.impl()).isPresent() ? args : v.jvm().withCollector(args);
    }

    /** Runs a trial in its variant's worker; one worker per variant may be alive at once. */
    private static Sample execute(Suite suite, Cell cell, Variant v, Trial trial, Map<String, WorkerProcess> workers,
                                  int liveWorkers) throws BenchmarkException {
        if (cell.isolation() == Isolation.FRESH_JVM) {
            List<String> args = workerArgs(suite, v, trial.mode(), liveWorkers, cell.workload());
            try (WorkerProcess fresh = WorkerProcess.start(suite, v.label(), args, liveWorkers)) {
                return fresh.run(trial);
            }
        }
        WorkerProcess w = workers.get(v.label());
        if (w == null) {
            w = WorkerProcess.start(suite, v.label(), workerArgs(suite, v, trial.mode(), liveWorkers, null), liveWorkers);
            workers.put(v.label(), w);
        }
        return w.run(trial);
    }

    private static double[] values(List<Sample> runs, Metric metric) {
        return runs.stream().mapToDouble(s -> s.metric(metric.name())).toArray();
    }

    /** The variants that have runs in a cell, in the settings' order. */
    private static List<Variant> measuredIn(Suite suite, Cell cell, List<Variant> variants) {
        return variants.stream().filter(v -> suite.measures(v.impl(), cell)).toList();
    }

    private static double estimateSeconds(Suite suite, List<Cell> cells, Settings s) {
        double total = 0;
        for (Cell c : cells) {
            int runs = suite.runs(c, s);
            double perImpl = c.isolation() == Isolation.FRESH_JVM
                    ? runs * FRESH_RUN_SECONDS
                    : s.warmupSeconds() + runs * (s.durationSeconds() + RUN_OVERHEAD_SECONDS);
            total += perImpl * measuredIn(suite, c, s.variants()).size();
        }
        return total;
    }
}
