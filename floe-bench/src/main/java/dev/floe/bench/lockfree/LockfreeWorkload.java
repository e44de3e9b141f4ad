package dev.floe.bench.lockfree;

import dev.floe.bench.harness.Mode;

import java.util.List;

/**
 * The timed workloads of the {@code lockfree} suite (names fixed by BENCHMARKS.md): a structure,
 * its pre-inserted size, and an operation mix. Keys are drawn uniformly from {@code [0, 2 * size)}
 * and the table starts with {@code size} of them, so inserts and removes succeed equally often and
 * the size stays constant (the paper's section 6 setting).
 *
 * @param searchPercent share of contains (the rest is split evenly between insert and remove)
 */
record LockfreeWorkload(String name, boolean hash, long fullSize, long quickSize, int searchPercent) {

    /** Keys in {@code hash-1m-*} in quick mode (full mode: the paper's 1,000,000). */
    static final long QUICK_1M_KEYS = 100_000;

    static final List<LockfreeWorkload> TIMED = List.of(
            new LockfreeWorkload("list-5k-update", false, 5_000, 5_000, 0),
            new LockfreeWorkload("list-5k-mixed", false, 5_000, 5_000, 50),
            new LockfreeWorkload("hash-10k-update", true, 10_000, 10_000, 0),
            new LockfreeWorkload("hash-10k-mixed", true, 10_000, 10_000, 50),
            new LockfreeWorkload("hash-1m-update", true, 1_000_000, QUICK_1M_KEYS, 0),
            new LockfreeWorkload("hash-1m-mixed", true, 1_000_000, QUICK_1M_KEYS, 50));

    static LockfreeWorkload byName(String name) {
        for (LockfreeWorkload w : TIMED) if (w.name.equals(name)) return w;
        throw new IllegalArgumentException("lockfree has no timed workload '" + name + "'");
    }

    long size(Mode mode) {
        return mode == Mode.FULL ? fullSize : quickSize;
    }
}
