package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/** Median, min and max of one metric over the runs of one result. */
public record Summary(double median, double min, double max) {

    /** {@code {"median": …, "min": …, "max": …}}, each rounded to a whole number. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("median", (double) Math.round(median));
        m.put("min", (double) Math.round(min));
        m.put("max", (double) Math.round(max));
        return m;
    }
}
