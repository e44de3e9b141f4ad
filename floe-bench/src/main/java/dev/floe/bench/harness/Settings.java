package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The resolved parameters of one suite run: the suite's defaults for the mode, overridden by
 * whatever options were given, validated.
 *
 * @param impls implementations to run, in the suite's display order
 */
public record Settings(Mode mode, double durationSeconds, double warmupSeconds, int runs,
                       List<Integer> threads, List<String> impls) {

    public Settings {
        threads = List.copyOf(threads);
        impls = List.copyOf(impls);
        if (!(durationSeconds > 0) || Double.isInfinite(durationSeconds)) {
            throw new IllegalArgumentException("--duration must be a positive number of seconds: " + durationSeconds);
        }
        if (!(warmupSeconds >= 0) || Double.isInfinite(warmupSeconds)) {
            throw new IllegalArgumentException("--warmup must be a number of seconds, 0 or more: " + warmupSeconds);
        }
        if (runs < 1) throw new IllegalArgumentException("--runs must be at least 1: " + runs);
        if (threads.isEmpty()) throw new IllegalArgumentException("--threads needs at least one value");
        for (int t : threads) {
            if (t < 1) throw new IllegalArgumentException("--threads values must be at least 1: " + t);
        }
        if (impls.isEmpty()) throw new IllegalArgumentException("no implementation selected");
    }

    /**
     * The suite's defaults for the options' mode, overridden by the given options.
     *
     * @throws IllegalArgumentException for an implementation the suite does not have, an
     *                                  out-of-range value, or an option the suite cannot honour
     *                                  ({@link Suite#unusableOptions})
     */
    public static Settings resolve(Suite suite, BenchOptions o) {
        Map<String, String> unusable = suite.unusableOptions(o);
        if (!unusable.isEmpty()) {
            List<String> why = new ArrayList<>();
            unusable.forEach((option, reason) -> why.add("suite " + suite.name() + " does not take " + option + ": " + reason));
            throw new IllegalArgumentException(String.join("; ", why));
        }
        Settings d = suite.defaults(o.modeOrQuick());
        List<String> impls = d.impls();
        if (o.impls() != null) {
            for (String name : o.impls()) {
                if (!suite.impls().contains(name)) {
                    throw new IllegalArgumentException("suite " + suite.name() + " has no implementation '"
                            + name + "'; choose from " + String.join(", ", suite.impls()));
                }
            }
            impls = new ArrayList<>(suite.impls());
            impls.retainAll(o.impls());
        }
        return new Settings(d.mode(),
                o.duration() != null ? o.duration() : d.durationSeconds(),
                o.warmup() != null ? o.warmup() : d.warmupSeconds(),
                o.runs() != null ? o.runs() : d.runs(),
                o.threads() != null ? o.threads().stream().distinct().toList() : d.threads(),
                impls);
    }

    /** The common part of a suite's {@code config} object. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode.label());
        m.put("duration_s", durationSeconds);
        m.put("warmup_s", warmupSeconds);
        m.put("runs", runs);
        m.put("threads", threads);
        m.put("impls", impls);
        return m;
    }

    /** Thread counts for full mode: 1, 2, 4, … up to the core count (at least 1 and 2). */
    public static List<Integer> fullThreads() {
        List<Integer> t = new ArrayList<>(List.of(1, 2));
        for (int n = 4; n <= Runtime.getRuntime().availableProcessors(); n *= 2) t.add(n);
        return t;
    }
}
