package dev.floe.bench.harness;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * A JIT warm-up: rounds of a suite's own operations until the JIT compiler has gone quiet, the
 * same rule for every implementation:
 *
 * <ul>
 *   <li>a round is <em>quiet</em> when the JVM's total compilation time
 *       ({@link CompilationMXBean#getTotalCompilationTime()}) grew by less than
 *       {@link #QUIET_COMPILE_MS} during it;</li>
 *   <li>warm-up ends once at least {@code minSeconds} have passed and the last
 *       {@link #QUIET_ROUNDS} rounds were quiet, or once {@code maxSeconds} have passed whatever
 *       the JIT does; there is always at least one round (where compilation time is not
 *       monitored, warm-up lasts {@code maxSeconds}).</li>
 * </ul>
 * Why: quick runs last 0.1–0.5 s, and C2 compiles Floe's paths (FFM accesses, the allocator,
 * the reclamation protocols) for longer than a {@code byte[]} or skip-list path: a fixed short
 * warm-up left compilation running inside the measured runs, where on a 2-core machine the
 * compiler threads take a core from the second worker thread, so two-thread cells measured the
 * compilers, not the implementations (a paper-sized run amortizes that). The manual suite
 * ({@code dev.floe.bench.manual}: {@code manual}'s measured runs carried 200–600 ms of
 * compilation, {@code gc-g1}'s 70–90 ms), the per-worker warm-ups and each cell's own warm-up
 * of the map suite ({@code dev.floe.bench.map.MapSuite}: {@code floe-oak} compiles for about
 * 1.2 s of CPU, {@code cslm} for 0.4 s), and the per-worker warm-up of the lockfree suite
 * ({@code dev.floe.bench.lockfree.LockfreeSuite}) use it.
 */
public final class JitWarmUp {
    /** A round that compiled less than this (milliseconds of compiler time) is quiet. */
    public static final long QUIET_COMPILE_MS = 10;
    /** Quiet rounds in a row that end the warm-up. */
    public static final int QUIET_ROUNDS = 2;

    /** One warm-up round; {@code index} counts from 0 (for the round's seed). */
    @FunctionalInterface
    public interface Round {
        void run(int index) throws Exception;
    }

    private JitWarmUp() {}

    /** Runs rounds as the class comment says; returns the number of rounds. */
    public static int run(double minSeconds, double maxSeconds, Round round) throws Exception {
        long start = System.nanoTime();
        long min = (long) (minSeconds * 1e9);
        long max = (long) (maxSeconds * 1e9);
        boolean monitored = compileMillis() >= 0;
        int quiet = 0;
        int rounds = 0;
        while (true) {
            long before = compileMillis();
            round.run(rounds++);
            quiet = monitored && compileMillis() - before < QUIET_COMPILE_MS ? quiet + 1 : 0;
            long elapsed = System.nanoTime() - start;
            if (elapsed >= max || (elapsed >= min && quiet >= QUIET_ROUNDS)) return rounds;
        }
    }

    /**
     * The thread count for round {@code round} of a per-worker warm-up whose first cell runs
     * {@code threads} threads: at least two in even rounds, starting with the first, and
     * {@code threads} in odd ones. The paths only contention takes (a lost CAS, a restart after a
     * reclamation warning, a locked value) are then compiled before the first two-thread cell
     * too; rounds with one thread only left their first use (an uncommon trap, a deoptimization,
     * a recompilation) inside the measured runs of that cell. The first round has two threads
     * because a warm-up whose rounds are long may end at its maximum time after one round (the
     * map suite's, on a busy host), and two threads take the one-thread paths as well.
     */
    public static int roundThreads(int round, int threads) {
        return round % 2 == 0 ? Math.max(2, threads) : threads;
    }

    /** One slice of a cell's warm-up: run the cell's workload for {@code seconds}. */
    @FunctionalInterface
    public interface Slice {
        void run(double seconds) throws Exception;
    }

    /**
     * A cell's own warm-up before its first measured run, by the same rule: slices of
     * {@code sliceSeconds} (at most {@code leastSeconds}) until the JIT is quiet, at least
     * {@code leastSeconds} (the suite's {@code --warmup}) and at most one second more. A worker's
     * warm-up compiles every workload, but a cell may still reach paths the worker's rounds rarely
     * took (a two-thread cell's contended paths), whose first use deoptimizes and recompiles.
     * Compilation time counts when a compilation ends, so a long one still under way can make a
     * slice look quiet: this narrows the compilation left in the measured runs, it cannot rule it
     * out (the cells report it as {@code jit_ms}). Returns the slices.
     */
    public static int cell(double leastSeconds, double sliceSeconds, Slice slice) throws Exception {
        double each = Math.min(leastSeconds, sliceSeconds);
        return run(leastSeconds, leastSeconds + 1.0, round -> slice.run(each));
    }

    /** The JVM's total JIT compilation time so far in milliseconds, or -1 where it is not monitored. */
    public static long compileMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }
}
