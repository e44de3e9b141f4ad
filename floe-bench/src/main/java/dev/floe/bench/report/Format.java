package dev.floe.bench.report;

import dev.floe.bench.harness.Units;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** Text forms shared by the HTML page, the summary and the comparison (on top of {@link Units}). */
final class Format {

    private Format() {}

    /** A change from {@code before} to {@code after} in percent, signed ({@code +12.3%}), or {@code -} if undefined. */
    static String percent(double before, double after) {
        if (!(before > 0) || !Double.isFinite(after)) return "-";
        return String.format(Locale.ROOT, "%+.1f%%", (after - before) / before * 100);
    }

    /** A config value: lists joined with commas, numbers without trailing zeros. */
    static String config(Object v) {
        return switch (v) {
            case null -> "-";
            case List<?> l -> l.stream().map(Format::config).collect(Collectors.joining(", "));
            case Map<?, ?> m -> m.entrySet().stream().map(e -> e.getKey() + "=" + config(e.getValue()))
                    .collect(Collectors.joining(" "));
            case Number n -> Units.number(n.doubleValue());
            default -> v.toString();
        };
    }

    /** The config line every suite has, e.g. {@code quick mode: 1 s per run after 0.5 s warm-up, median of 3 runs}. */
    static String modeLine(Map<String, Object> config) {
        return config.get("mode") + " mode: " + config(config.get("duration_s")) + " s per run after "
                + config(config.get("warmup_s")) + " s warm-up, median of " + config(config.get("runs")) + " runs";
    }
}
