package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One run to execute in a worker JVM: which suite, implementation, workload and thread count,
 * how long to warm up first (0 after the first run of a cell) and how long to measure, and the
 * {@link JvmConfig} whose budgets the suite sizes the run by. Travels to the worker as one JSON
 * line.
 */
public record Trial(String suite, Mode mode, String impl, String workload, int threads,
                    double warmupSeconds, double durationSeconds, JvmConfig jvm) {

    /** A trial in the suite's own configuration. */
    public Trial(String suite, Mode mode, String impl, String workload, int threads, double warmupSeconds,
                 double durationSeconds) {
        this(suite, mode, impl, workload, threads, warmupSeconds, durationSeconds, JvmConfig.DEFAULT);
    }

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
        if (!jvm.equals(JvmConfig.DEFAULT)) m.put("jvm", jvm.toJson());
        return m;
    }

    /** Reads back {@link #toJson()}. */
    public static Trial fromJson(Map<String, Object> m) {
        return new Trial((String) m.get("suite"), Mode.valueOf(((String) m.get("mode")).toUpperCase(java.util.Locale.ROOT)),
                (String) m.get("impl"), (String) m.get("workload"), ((Number) m.get("threads")).intValue(),
                ((Number) m.get("warmup_s")).doubleValue(), ((Number) m.get("duration_s")).doubleValue(),
                JvmConfig.fromJson(castObject(m.get("jvm"))));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castObject(Object o) {
        return (Map<String, Object>) o;
    }
}
