package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A goal a suite states about its own numbers (for example "floe-alloc at least 1.5x malloc on
 * same-thread ops/s"), checked against one run. Kept as data so that the console table and a
 * later HTML report show the same verdicts.
 *
 * @param target      a short, stable identifier of the goal
 * @param description the goal in words
 * @param vs          the other implementation for a ratio goal, or {@code null}
 * @param metric      what {@code observed} measures ({@code ops_per_s_ratio}, {@code rss_after_bytes}, …)
 * @param comparison  {@code ">="} or {@code "<="}: how {@code observed} must relate to {@code threshold}
 */
public record TargetCheck(String target, String description, String workload, int threads, String impl,
                          String vs, String metric, double observed, String comparison, double threshold) {

    public TargetCheck {
        if (!comparison.equals(">=") && !comparison.equals("<=")) {
            throw new IllegalArgumentException("comparison must be >= or <=: " + comparison);
        }
    }

    /**
     * Whether the goal was reached; never for an undefined observation (NaN, or an infinite
     * ratio, which the JSON and the console show as undefined too: docs/benchmarks.md).
     */
    public boolean met() {
        if (!Double.isFinite(observed)) return false;
        return comparison.equals(">=") ? observed >= threshold : observed <= threshold;
    }

    /** The {@code targets} entry of a suite in the JSON. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", target);
        m.put("description", description);
        m.put("workload", workload);
        m.put("threads", threads);
        m.put("impl", impl);
        m.put("vs", vs);
        m.put("metric", metric);
        m.put("observed", round(observed));
        m.put("comparison", comparison);
        m.put("threshold", round(threshold));
        m.put("met", met());
        return m;
    }

    /** Four decimals, whole numbers from 1000; a non-finite value stays as it is ({@code null} in the JSON). */
    private static double round(double v) {
        if (!Double.isFinite(v)) return v;
        return Math.abs(v) >= 1000 ? Math.round(v) : Math.round(v * 1e4) / 1e4;
    }
}
