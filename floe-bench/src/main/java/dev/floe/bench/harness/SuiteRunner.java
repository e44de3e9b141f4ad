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
 * new JVM for every run.
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

    /** Runs every cell of the suite and summarises it, goals included. */
    public SuiteReport run(Suite suite, Settings settings) throws BenchmarkException {
        long startedNanos = System.nanoTime();
        List<Cell> cells = suite.cells(settings);
        List<String> impls = settings.impls();
        int steps = 0;
        for (Cell cell : cells) steps += settings.runs() * implsOf(suite, cell, impls).size();
        progress.begin(suite.name(), steps, estimateSeconds(suite, cells, settings));
        List<Result> results = new ArrayList<>();
        List<Ratio> ratios = new ArrayList<>();
        Map<String, WorkerProcess> workers = new LinkedHashMap<>();
        try {
            for (Cell cell : cells) {
                List<String> measured = implsOf(suite, cell, impls);
                Map<String, List<Sample>> samples = new LinkedHashMap<>();
                for (int run = 0; run < settings.runs(); run++) {
                    for (String impl : measured) {
                        Trial trial = new Trial(suite.name(), settings.mode(), impl, cell.workload(), cell.threads(),
                                run == 0 ? settings.warmupSeconds() : 0, settings.durationSeconds());
                        String label = cell.workload() + " t=" + cell.threads() + " " + impl
                                + " " + (run + 1) + "/" + settings.runs();
                        progress.stepStarted(label);
                        Sample s = execute(suite, cell, trial, workers, impls.size());
                        progress.stepDone(label, Units.rate(s.metric(Metric.OPS_PER_S.name())) + " ops/s");
                        samples.computeIfAbsent(impl, k -> new ArrayList<>()).add(s);
                    }
                }
                samples.forEach((impl, runs) -> results.add(Result.of(cell, impl, runs)));
                for (Comparison c : suite.comparisons(cell, measured)) {
                    ratios.add(new Ratio(cell.workload(), cell.threads(), c.impl(), c.vs(), c.metric().name(),
                            Stats.medianRatio(values(samples.get(c.impl()), c.metric()),
                                    values(samples.get(c.vs()), c.metric()), c.metric())));
                }
            }
        } finally {
            workers.values().forEach(WorkerProcess::close);
            progress.end();
        }
        Map<String, Object> config = new LinkedHashMap<>(settings.toJson());
        config.putAll(suite.config(settings));
        // Wall time of the whole suite (forks, fills, warm-ups included): the main job's budget.
        config.put("wall_seconds", Math.round((System.nanoTime() - startedNanos) / 1e8) / 10.0);
        SuiteReport report = new SuiteReport(suite.name(), config, results, ratios, List.of());
        return report.withTargets(suite.targets(report));
    }

    /** Runs a trial in its implementation's worker; one worker per implementation may be alive at once. */
    private static Sample execute(Suite suite, Cell cell, Trial trial, Map<String, WorkerProcess> workers,
                                  int liveWorkers) throws BenchmarkException {
        if (cell.isolation() == Isolation.FRESH_JVM) {
            List<String> args = suite.jvmArgs(trial.impl(), trial.mode(), liveWorkers, cell.workload());
            try (WorkerProcess fresh = WorkerProcess.start(suite, trial.impl(), args, liveWorkers)) {
                return fresh.run(trial);
            }
        }
        WorkerProcess w = workers.get(trial.impl());
        if (w == null) {
            w = WorkerProcess.start(suite, trial.impl(), suite.jvmArgs(trial.impl(), trial.mode(), liveWorkers), liveWorkers);
            workers.put(trial.impl(), w);
        }
        return w.run(trial);
    }

    private static double[] values(List<Sample> runs, Metric metric) {
        return runs.stream().mapToDouble(s -> s.metric(metric.name())).toArray();
    }

    /** The selected implementations that have runs in a cell, in the selection's order. */
    private static List<String> implsOf(Suite suite, Cell cell, List<String> impls) {
        return impls.stream().filter(impl -> suite.measures(impl, cell)).toList();
    }

    private static double estimateSeconds(Suite suite, List<Cell> cells, Settings s) {
        double total = 0;
        for (Cell c : cells) {
            double perImpl = c.isolation() == Isolation.FRESH_JVM
                    ? s.runs() * FRESH_RUN_SECONDS
                    : s.warmupSeconds() + s.runs() * (s.durationSeconds() + RUN_OVERHEAD_SECONDS);
            total += perImpl * implsOf(suite, c, s.impls()).size();
        }
        return total;
    }
}
