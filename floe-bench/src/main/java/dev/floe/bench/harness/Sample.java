package dev.floe.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one run of one implementation measured: named metrics (always {@code ops_per_s}; others
 * such as {@code rss_bytes} when a suite compares them), the process memory, and suite-specific
 * numbers for the result's {@code extra} object. Travels from a worker JVM as one JSON line.
 */
public record Sample(Map<String, Double> metrics, MemorySnapshot memory, Map<String, Double> extra) {

    public Sample {
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
        if (!metrics.containsKey(Metric.OPS_PER_S.name())) {
            throw new IllegalArgumentException("a sample needs " + Metric.OPS_PER_S.name() + ": " + metrics);
        }
    }

    /** The value of a metric; fails if the run did not measure it. */
    public double metric(String name) {
        Double v = metrics.get(name);
        if (v == null) throw new IllegalArgumentException("no metric " + name + " in " + metrics.keySet());
        return v;
    }

    /** The worker protocol's form of this sample. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("metrics", new LinkedHashMap<>(metrics));
        m.put("memory", memory.toJson());
        m.put("extra", new LinkedHashMap<>(extra));
        return m;
    }

    /** Reads back {@link #toJson()}. */
    @SuppressWarnings("unchecked")
    public static Sample fromJson(Map<String, Object> m) {
        return new Sample(numbers((Map<String, Object>) m.get("metrics")),
                MemorySnapshot.fromJson((Map<String, Object>) m.get("memory")),
                numbers((Map<String, Object>) m.get("extra")));
    }

    private static Map<String, Double> numbers(Map<String, Object> m) {
        Map<String, Double> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v instanceof Number n ? n.doubleValue() : Double.NaN));
        return out;
    }
}
