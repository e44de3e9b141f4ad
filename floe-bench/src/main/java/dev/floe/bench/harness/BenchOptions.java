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
 */
public record BenchOptions(Mode mode, List<String> impls, List<Integer> threads, Double duration,
                           Double warmup, Integer runs) {

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
     * {@code --threads}), which then take the suite's defaults.
     */
    public BenchOptions without(java.util.Set<String> names) {
        return new BenchOptions(mode, impls, names.contains("--threads") ? null : threads,
                names.contains("--duration") ? null : duration, names.contains("--warmup") ? null : warmup, runs);
    }

    /** The same options with another implementation list. */
    public BenchOptions withImpls(List<String> newImpls) {
        return new BenchOptions(mode, newImpls, threads, duration, warmup, runs);
    }
}
