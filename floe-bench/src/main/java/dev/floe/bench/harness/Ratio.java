package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The median of per-pair ratios of {@code impl} against {@code vs} on one metric in one cell;
 * above 1 means {@code impl} did better (see {@link Stats#pairRatios}).
 */
public record Ratio(String workload, int threads, String impl, String vs, String metric, double medianRatio) {

    /** The JSON object of BENCHMARKS.md, ratio rounded to four decimals. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload);
        m.put("threads", threads);
        m.put("impl", impl);
        m.put("vs", vs);
        m.put("metric", metric);
        m.put("median_ratio", Double.isFinite(medianRatio) ? Math.round(medianRatio * 1e4) / 1e4 : medianRatio);
        return m;
    }
}
