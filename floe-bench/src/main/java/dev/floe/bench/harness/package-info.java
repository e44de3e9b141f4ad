/**
 * The benchmark harness every suite reuses.
 *
 * <h2>Flow of one suite</h2>
 * <ol>
 *   <li>{@link dev.floe.bench.harness.Settings#resolve} merges the command-line
 *       {@link dev.floe.bench.harness.BenchOptions} into the suite's defaults for the mode.</li>
 *   <li>{@link dev.floe.bench.harness.SuiteRunner} walks the suite's
 *       {@link dev.floe.bench.harness.Cell}s (workload x threads). In each cell it runs every
 *       implementation once, then again, {@code runs} times (A B A B …), each run a
 *       {@link dev.floe.bench.harness.Trial} sent to a worker JVM.</li>
 *   <li>The worker ({@link dev.floe.bench.harness.WorkerMain}) hosts one implementation only and
 *       calls {@link dev.floe.bench.harness.Suite#measure}; threaded workloads use
 *       {@link dev.floe.bench.harness.TimedRun}, which times N
 *       {@link dev.floe.bench.harness.TimedTask}s against one
 *       {@link dev.floe.bench.harness.StopSignal}. The answer is a
 *       {@link dev.floe.bench.harness.Sample}: metrics, a
 *       {@link dev.floe.bench.harness.MemorySnapshot}, extras.</li>
 *   <li>Samples become {@link dev.floe.bench.harness.Result}s (median/min/max) and
 *       {@link dev.floe.bench.harness.Ratio}s (median of per-pair ratios,
 *       {@link dev.floe.bench.harness.Stats}); the suite checks its goals
 *       ({@link dev.floe.bench.harness.TargetCheck}); the whole becomes a
 *       {@link dev.floe.bench.harness.SuiteReport}, printed by
 *       {@link dev.floe.bench.harness.ConsoleReport} and written as {@link dev.floe.bench.harness.Report}
 *       JSON.</li>
 * </ol>
 *
 * <h2>Why worker JVMs</h2>
 * Measuring several implementations in one JVM colours the numbers: shared call sites turn
 * megamorphic (the JIT stops inlining the allocator), one implementation's native memory and
 * heap show up in another's RSS, and JVM-wide state (thread caches, pools) carries over. Each
 * implementation therefore measures in its own long-lived JVM, and one-shot memory experiments in
 * a fresh JVM per run.
 */
package dev.floe.bench.harness;
