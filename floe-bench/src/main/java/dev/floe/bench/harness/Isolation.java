package dev.floe.bench.harness;

/**
 * Where the runs of a cell execute. Both keep implementations in separate JVMs, so that one
 * implementation's JIT profile, heap and native memory never colour another's numbers.
 */
public enum Isolation {
    /** One long-lived worker JVM per implementation, reused by every run of the suite. */
    SHARED_WORKER,
    /**
     * One worker JVM per implementation and workload, reused by the runs of that workload at every
     * thread count and closed when the implementation's next cell is of another workload: the
     * JIT then compiles each workload's paths for that workload's operation mix alone, as when
     * every workload runs in its own process (as the papers run them), instead of with a profile
     * left by the workloads before it in the same worker.
     */
    WORKLOAD_WORKER,
    /** A fresh JVM for every single run (memory-release measurements need a clean process). */
    FRESH_JVM
}
