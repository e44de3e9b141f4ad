package dev.floe.bench.harness;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Set;

/** Human-readable numbers for the console: rates with k/M/G, sizes in KiB/MiB/GiB, ratios as {@code 1.23x}. */
public final class Units {

    /** Extra keys that hold an RSS reading in bytes without saying {@code bytes} in their name. */
    private static final Set<String> RSS_READINGS = Set.of("rss", "rss_before", "rss_peak", "rss_after");

    private Units() {}

    /** A rate such as {@code 12.3 M}. */
    public static String rate(double v) {
        if (!Double.isFinite(v)) return "-";
        double a = Math.abs(v);
        if (a >= 1e9) return String.format(Locale.ROOT, "%.2f G", v / 1e9);
        if (a >= 1e6) return String.format(Locale.ROOT, "%.2f M", v / 1e6);
        if (a >= 1e3) return String.format(Locale.ROOT, "%.1f k", v / 1e3);
        return String.format(Locale.ROOT, "%.0f", v);
    }

    /** A byte count such as {@code 48.2 MiB}; negative values keep their sign. */
    public static String bytes(double v) {
        if (!Double.isFinite(v)) return "-";
        double a = Math.abs(v);
        if (a >= 1L << 30) return String.format(Locale.ROOT, "%.2f GiB", v / (1L << 30));
        if (a >= 1L << 20) return String.format(Locale.ROOT, "%.1f MiB", v / (1L << 20));
        if (a >= 1L << 10) return String.format(Locale.ROOT, "%.1f KiB", v / (1L << 10));
        return String.format(Locale.ROOT, "%.0f B", v);
    }

    /** A ratio such as {@code 2.31x}. */
    public static String ratio(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2fx", v) : "-";
    }

    /** Any other number: at most three decimals, no trailing zeros ({@code 2}, {@code 0.5}). */
    public static String number(double v) {
        if (!Double.isFinite(v)) return "-";
        return BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }

    /**
     * A figure under its JSON key, in the unit the key names: {@code *_ratio} as a ratio; byte
     * counts (keys containing {@code bytes}, and the RSS readings {@code rss}, {@code rss_before},
     * {@code rss_peak}, {@code rss_after}) as sizes; {@code *per_s*} as a rate; anything else (a
     * count such as {@code rss_samples}, a time in ms) as a plain number.
     */
    public static String of(String key, double v) {
        String k = key.toLowerCase(Locale.ROOT);
        if (k.endsWith("_ratio")) return ratio(v);
        if (k.contains("bytes") || RSS_READINGS.contains(k)) return bytes(v);
        if (k.contains("per_s")) return rate(v);
        return number(v);
    }
}
