package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One configuration of the worker JVMs of a suite that compares collectors or memory budgets
 * (BENCHMARKS.md's {@code --gc}, {@code --heap}, {@code --offheap}); a field left at its default
 * ({@code null}, 0) keeps the suite's own choice for the mode.
 *
 * <p>The budgets follow the papers' rule that every implementation gets the same RAM: an
 * implementation that keeps its data off the heap runs with {@code -Xmx heapBytes} and an
 * off-heap budget of {@code offheapBytes}; one that keeps it on the heap gets the sum of the two
 * as its heap. The collector applies to every worker JVM except those of a suite's collector
 * baselines ({@link Suite#collectorOf}): {@code gc-zgc} always runs ZGC, and runs only in the
 * configurations whose collector is ZGC (or that leave the collector to the suite).
 *
 * @param collector    the collector of the worker JVMs, {@code null} for the suite's choice (G1)
 * @param heapBytes    heap of the off-heap implementations, 0 for the suite's share
 * @param offheapBytes off-heap budget of the off-heap implementations, 0 for the suite's share
 */
public record JvmConfig(Collector collector, long heapBytes, long offheapBytes) {

    /** The suite's own configuration for the mode. */
    public static final JvmConfig DEFAULT = new JvmConfig(null, 0, 0);

    /** Smallest {@code --heap} / {@code --offheap}: a worker JVM needs some room of its own. */
    public static final long MIN_BYTES = 16L << 20;

    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmgt]?)(i?b)?");

    public JvmConfig {
        if (heapBytes != 0 && heapBytes < MIN_BYTES) {
            throw new IllegalArgumentException("--heap must be at least 16m: " + heapBytes + " bytes");
        }
        if (offheapBytes != 0 && offheapBytes < MIN_BYTES) {
            throw new IllegalArgumentException("--offheap must be at least 16m: " + offheapBytes + " bytes");
        }
        if (heapBytes % (1L << 20) != 0) throw new IllegalArgumentException("--heap must be whole MiB: " + heapBytes);
        if (offheapBytes % (1L << 20) != 0) throw new IllegalArgumentException("--offheap must be whole MiB: " + offheapBytes);
    }

    /**
     * Every combination of the given values, collectors outermost; an option not given
     * ({@code null}) keeps the suite's choice.
     */
    public static List<JvmConfig> product(List<Collector> collectors, List<Long> heaps, List<Long> offheaps) {
        List<Collector> cs = collectors == null ? java.util.Collections.singletonList(null) : collectors.stream().distinct().toList();
        List<Long> hs = heaps == null ? List.of(0L) : heaps.stream().distinct().toList();
        List<Long> os = offheaps == null ? List.of(0L) : offheaps.stream().distinct().toList();
        List<JvmConfig> out = new ArrayList<>();
        for (Collector c : cs) {
            for (long h : hs) {
                for (long o : os) out.add(new JvmConfig(c, h, o));
            }
        }
        return out;
    }

    /** {@code heapBytes}, or {@code suiteDefault} when the configuration leaves it to the suite. */
    public long heapOr(long suiteDefault) {
        return heapBytes != 0 ? heapBytes : suiteDefault;
    }

    /** {@code offheapBytes}, or {@code suiteDefault} when the configuration leaves it to the suite. */
    public long offheapOr(long suiteDefault) {
        return offheapBytes != 0 ? offheapBytes : suiteDefault;
    }

    /** Whether this configuration sets either budget. */
    public boolean setsBudget() {
        return heapBytes != 0 || offheapBytes != 0;
    }

    /**
     * {@code suiteArgs} with this configuration's collector in place of the suite's choice (any
     * {@code -XX:±Use…GC} option); unchanged when the configuration leaves the collector to the
     * suite.
     */
    public List<String> withCollector(List<String> suiteArgs) {
        if (collector == null) return suiteArgs;
        List<String> out = new ArrayList<>();
        out.add(collector.flag());
        for (String a : suiteArgs) {
            if (!Collector.isChoice(a)) out.add(a);
        }
        return out;
    }

    /**
     * The short name of this configuration in result labels, e.g. {@code zgc,heap=512m}, with
     * only the parts that differ between the configurations of a run ({@code gc}, {@code heap},
     * {@code offheap}).
     */
    public String label(boolean gc, boolean heap, boolean offheap) {
        List<String> parts = new ArrayList<>();
        if (gc) parts.add(collector == null ? "default-gc" : collector.label());
        if (heap) parts.add("heap=" + (heapBytes == 0 ? "default" : size(heapBytes)));
        if (offheap) parts.add("offheap=" + (offheapBytes == 0 ? "default" : size(offheapBytes)));
        return String.join(",", parts);
    }

    /** The JSON form (the worker protocol and the suite's config): only the parts that are set. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (collector != null) m.put("gc", collector.label());
        if (heapBytes != 0) m.put("heap_bytes", heapBytes);
        if (offheapBytes != 0) m.put("offheap_bytes", offheapBytes);
        return m;
    }

    /** Reads back {@link #toJson()}; {@code null} is the default configuration. */
    public static JvmConfig fromJson(Map<String, Object> m) {
        if (m == null) return DEFAULT;
        Object gc = m.get("gc");
        return new JvmConfig(gc == null ? null : Collector.byLabel((String) gc), longOf(m.get("heap_bytes")),
                longOf(m.get("offheap_bytes")));
    }

    /**
     * A size on the command line: a whole number of bytes, or of KiB/MiB/GiB/TiB with a suffix
     * {@code k}, {@code m}, {@code g}, {@code t} (any case, optionally followed by {@code b} or
     * {@code ib}), e.g. {@code 512m}, {@code 2GiB}; rounded up to whole MiB.
     */
    public static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 512m, 2g)");
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        if (n > (Long.MAX_VALUE >> shift) - (1L << 20)) throw new IllegalArgumentException("size out of range: '" + text + "'");
        long bytes = n << shift;
        return (bytes + (1L << 20) - 1) & -(1L << 20);
    }

    /** A size as {@link #parseSize} reads it, in the largest whole unit: {@code 512m}, {@code 2g}. */
    static String size(long bytes) {
        if (bytes % (1L << 30) == 0) return (bytes >> 30) + "g";
        return (bytes >> 20) + "m";
    }

    private static long longOf(Object o) {
        return o == null ? 0 : ((Number) o).longValue();
    }
}
