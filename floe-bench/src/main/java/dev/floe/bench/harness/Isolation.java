package dev.floe.bench.harness;

/**
 * Where the runs of a cell execute. Both keep implementations in separate JVMs, so that one
 * implementation's JIT profile, heap and native memory never colour another's numbers.
 */
public enum Isolation {
    /** One long-lived worker JVM per implementation (per {@link Variant}), reused by every run of the suite. */
    SHARED_WORKER,
    /** A fresh JVM for every single run (memory-release measurements need a clean process). */
    FRESH_JVM
}
