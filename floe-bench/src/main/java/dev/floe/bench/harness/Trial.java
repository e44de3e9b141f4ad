package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One run to execute in a worker JVM: which suite, implementation, workload and thread count,
 * how long to warm up first (0 after the first run of a cell) and how long to measure.
 * Travels to the worker as one JSON line.
 */
public record Trial(String suite, Mode mode, String impl, String workload, int threads,
                    double warmupSeconds, double durationSeconds) {

    /** The worker protocol's form of this trial. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", suite);
        m.put("mode", mode.label());
        m.put("impl", impl);
        m.put("workload", workload);
        m.put("threads", threads);
        m.put("warmup_s", warmupSeconds);
        m.put("duration_s", durationSeconds);
        return m;
    }

    /** Reads back {@link #toJson()}. */
    public static Trial fromJson(Map<String, Object> m) {
        return new Trial((String) m.get("suite"), Mode.valueOf(((String) m.get("mode")).toUpperCase(java.util.Locale.ROOT)),
                (String) m.get("impl"), (String) m.get("workload"), ((Number) m.get("threads")).intValue(),
                ((Number) m.get("warmup_s")).doubleValue(), ((Number) m.get("duration_s")).doubleValue());
    }
}
