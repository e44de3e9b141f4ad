package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/** Median, min and max of one metric over the runs of one result. */
public record Summary(double median, double min, double max) {

    /**
     * {@code {"median": …, "min": …, "max": …}}, each rounded to a whole number; a value no run
     * defined stays NaN (JSON {@code null}), not 0.
     */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", whole(median));
        m.put("min", whole(min));
        m.put("max", whole(max));
        return m;
    }

    private static double whole(double v) {
        return Double.isFinite(v) ? Math.round(v) : v;
    }
}
