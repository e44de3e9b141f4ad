package dev.floe.bench.harness;

import java.util.List;

/**
 * The common command-line options, as given: {@code null} means "not given, use the suite's
 * default for the mode".
 *
 * @param mode     {@code --quick} / {@code --full}; {@code null} means quick
 * @param impls    {@code --impl a,b}
 * @param threads  {@code --threads 1,2}
 * @param duration {@code --duration SEC}, per run
 * @param warmup   {@code --warmup SEC}, once per implementation and cell
 * @param runs     {@code --runs N}
 * @param gcs      {@code --gc g1,zgc,parallel}: one configuration of the worker JVMs per collector
 * @param heaps    {@code --heap SIZE,…}: heap of the off-heap implementations (see {@link JvmConfig})
 * @param offheaps {@code --offheap SIZE,…}: their off-heap budget
 */
public record BenchOptions(Mode mode, List<String> impls, List<Integer> threads, Double duration,
                           Double warmup, Integer runs, List<Collector> gcs, List<Long> heaps, List<Long> offheaps) {

    /** Options without {@code --gc}, {@code --heap} and {@code --offheap}. */
    public BenchOptions(Mode mode, List<String> impls, List<Integer> threads, Double duration, Double warmup,
                        Integer runs) {
        this(mode, impls, threads, duration, warmup, runs, null, null, null);
    }

    /** No option given: the quick defaults of every suite. */
    public static BenchOptions defaults() {
        return new BenchOptions(null, null, null, null, null, null);
    }

    /** The mode, quick when not given. */
    public Mode modeOrQuick() {
        return mode == null ? Mode.QUICK : mode;
    }

    /**
     * The same options without the named ones ({@code --duration}, {@code --warmup},
     * {@code --threads}, {@code --gc}, {@code --heap}, {@code --offheap}), which then take the
     * suite's defaults.
     */
    public BenchOptions without(java.util.Set<String> names) {
        return new BenchOptions(mode, impls, names.contains("--threads") ? null : threads,
                names.contains("--duration") ? null : duration, names.contains("--warmup") ? null : warmup, runs,
                names.contains("--gc") ? null : gcs, names.contains("--heap") ? null : heaps,
                names.contains("--offheap") ? null : offheaps);
    }

    /** The same options with another implementation list. */
    public BenchOptions withImpls(List<String> newImpls) {
        return new BenchOptions(mode, newImpls, threads, duration, warmup, runs, gcs, heaps, offheaps);
    }
}
