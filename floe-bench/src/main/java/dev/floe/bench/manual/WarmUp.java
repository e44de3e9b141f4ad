package dev.floe.bench.manual;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The warm-up that precedes a measured run of the caching benchmark: rounds of the same request
 * loop on throw-away caches until the JIT compiler has gone quiet, the same rule for every
 * implementation:
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
 * Why: the quick runs last 0.1–0.5 s, and after one round (half a run's requests) C2 was still
 * compiling the request path during the measured run, on a 2-core machine where the compiler
 * threads compete with the request threads. {@code manual}'s path (FFM accesses, the allocator,
 * the epoch protocol) has more code to compile than a {@code byte[]} access (its hot request
 * method alone is a 3 KB inlining tree, ~185 ms of C2 time), so its measured runs carried
 * 200–600 ms of compilation while {@code gc-g1}'s carried 70–90 ms: the time ratio measured the
 * compilers, not the caches, and a paper-sized run (4M requests) amortizes that. The rounds run
 * and the compilation left inside the measured run are reported ({@code extra.warmup_rounds},
 * {@code extra.jit_ms}).
 */
final class WarmUp {
    /** A round that compiled less than this (milliseconds of compiler time) is quiet. */
    static final long QUIET_COMPILE_MS = 10;
    /** Quiet rounds in a row that end the warm-up. */
    static final int QUIET_ROUNDS = 2;

    /** One warm-up round; {@code index} counts from 0 (for the round's seed). */
    @FunctionalInterface
    interface Round {
        void run(int index) throws Exception;
    }

    private WarmUp() {}

    /** Runs rounds as the class comment says; returns the number of rounds. */
    static int run(double minSeconds, double maxSeconds, Round round) throws Exception {
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

    /** The JVM's total JIT compilation time so far in milliseconds, or -1 where it is not monitored. */
    static long compileMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }
}
