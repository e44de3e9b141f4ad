package dev.floe.bench.harness;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A benchmark suite: a set of implementations measured on a set of workloads.
 *
 * <p>A suite describes <em>what</em> to measure and measures one run; the {@link SuiteRunner}
 * decides <em>how</em>: it resolves the options into {@link Settings}, starts worker JVMs,
 * interleaves the runs A B A B …, summarises them and computes the ratios. Adding a suite is one
 * class implementing this interface plus its entry in {@code dev.floe.bench.SuiteRegistry}.
 *
 * <p>{@link #measure} runs inside a worker JVM (see {@link WorkerMain}) that only ever hosts one
 * implementation and creates the suite from its class name: an implementing class must be public
 * with a public no-argument constructor, and must not rely on state from the parent process.
 * Everything else runs in the parent.
 */
public interface Suite {

    /** The suite's name on the command line and in the JSON, e.g. {@code alloc}. */
    String name();

    /** One line for help texts and the console header. */
    String description();

    /** Every implementation, in display order. */
    List<String> impls();

    /** The defaults for a mode: duration, warm-up, runs, thread counts, all implementations. */
    Settings defaults(Mode mode);

    /** The suite-specific part of the JSON {@code config} object (sizes, counts, notes). */
    Map<String, Object> config(Settings settings);

    /**
     * The common options, as given, that this suite cannot honour, by option name
     * ({@code --duration}, {@code --warmup}, {@code --threads}) with the reason; none by default.
     * A run of this suite alone is refused with them ({@link Settings#resolve}); the main job
     * leaves them out for this suite and says so.
     */
    default Map<String, String> unusableOptions(BenchOptions given) {
        return Map.of();
    }

    /** The cells to measure, in report order. */
    List<Cell> cells(Settings settings);

    /** The ratios to report for a cell, among the selected implementations that {@link #measures} it. */
    List<Comparison> comparisons(Cell cell, List<String> impls);

    /**
     * Whether {@code impl} has runs in {@code cell}; every implementation in every cell by default.
     * The runner leaves the other pairs out altogether (no worker call, no result row, no ratio),
     * so a baseline that only makes sense for one workload costs nothing elsewhere.
     */
    default boolean measures(String impl, Cell cell) {
        return true;
    }

    /**
     * How many runs {@code cell} gets (per implementation): {@link Settings#runs()} by default. A
     * suite may give a one-shot cell fewer in quick mode when its figure hardly varies from run
     * to run and no goal reads its rate (the map suite's {@code ingest}), to keep the main job within
     * its time.
     */
    default int runs(Cell cell, Settings settings) {
        return settings.runs();
    }

    /**
     * Runs one trial in this JVM: warm up for {@link Trial#warmupSeconds()}, then measure for
     * {@link Trial#durationSeconds()} (or, for one-shot workloads, do the work once).
     */
    Sample measure(Trial trial) throws Exception;

    /** Extra JVM options for the worker JVMs of an implementation (system properties, GC choice). */
    default List<String> jvmArgs(String impl) {
        return List.of();
    }

    /** System property telling a worker JVM how many worker JVMs share the machine with it. */
    String LIVE_WORKERS = "floe.bench.liveWorkers";

    /**
     * Extra JVM options for the worker JVMs of an implementation in a mode and configuration, for
     * suites whose heap budgets scale with the mode, with {@code liveWorkers}, the number of
     * worker JVMs (one per {@link Variant}) that are alive at the same time and must share the
     * machine's memory, and with {@code jvm}'s budgets; {@link #jvmArgs(String)} by default.
     * Workers see the same number in the system property {@link #LIVE_WORKERS}. The runner puts
     * {@code jvm}'s collector in place of the one chosen here, except for a
     * {@link #collectorOf collector baseline}.
     */
    default List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm) {
        return jvmArgs(impl);
    }

    /**
     * JVM options of the fresh JVM that runs one trial of {@code workload} ({@link Isolation#FRESH_JVM}
     * cells); those of the suite's workers by default. A suite overrides it for a cell that needs
     * more than a shared worker has, given to every implementation alike (the map suite's
     * {@code rollup} adds the heap its pre-generated input takes).
     */
    default List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm, String workload) {
        return jvmArgs(impl, mode, liveWorkers, jvm);
    }

    /**
     * Whether this suite compares collectors or memory budgets, and so takes {@code --gc},
     * {@code --heap} and {@code --offheap} ({@link JvmConfig}): then its sizes and worker options
     * must follow {@link Trial#jvm()} and the {@code jvm} argument of {@link #jvmArgs(String, Mode, int, JvmConfig)}.
     * Other suites refuse those options.
     */
    default boolean comparesCollectors() {
        return false;
    }

    /**
     * The collector an implementation stands for, if it is a collector baseline such as
     * {@code gc-zgc}: it keeps that collector in every configuration and runs only in those of
     * that collector (or of the suite's choice); empty for the others, which run under the
     * configuration's collector.
     */
    default Optional<Collector> collectorOf(String impl) {
        return Optional.empty();
    }

    /** The suite's goals checked against a finished report; none by default. */
    default List<TargetCheck> targets(SuiteReport report) {
        return List.of();
    }
}
