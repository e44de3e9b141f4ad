package dev.floe.bench.harness;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * One implementation in one cell, summarised over its runs: throughput (median, min, max), the
 * median of each memory figure, and the median of each {@code extra} number.
 */
public record Result(String workload, String impl, int threads, Summary opsPerSecond,
                     MemorySnapshot memory, Map<String, Double> extra) {

    public Result {
        extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    }

    /** Summarises the runs of one implementation in one cell. */
    public static Result of(Cell cell, String impl, List<Sample> runs) {
        double[] ops = runs.stream().mapToDouble(s -> s.metric(Metric.OPS_PER_S.name())).toArray();
        MemorySnapshot memory = new MemorySnapshot(
                medianOf(runs, MemorySnapshot::rssBytes), medianOf(runs, MemorySnapshot::heapUsedBytes),
                medianOf(runs, MemorySnapshot::offheapCommittedBytes), medianOf(runs, MemorySnapshot::offheapLiveBytes));
        Map<String, Double> extra = new LinkedHashMap<>();
        TreeSet<String> keys = new TreeSet<>();
        runs.forEach(s -> keys.addAll(s.extra().keySet()));
        for (String k : keys) {
            double[] v = runs.stream().filter(s -> s.extra().containsKey(k)).mapToDouble(s -> s.extra().get(k)).toArray();
            extra.put(k, Stats.median(v));
        }
        return new Result(cell.workload(), impl, cell.threads(), Stats.summarize(ops), memory, extra);
    }

    private static long medianOf(List<Sample> runs, ToLongFunction<MemorySnapshot> field) {
        return Math.round(Stats.median(runs.stream().mapToDouble(s -> field.applyAsLong(s.memory())).toArray()));
    }

    /** The result object of BENCHMARKS.md. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workload", workload);
        m.put("impl", impl);
        m.put("threads", threads);
        m.put("ops_per_s", opsPerSecond.toJson());
        m.put("memory", memory.toJson());
        Map<String, Object> x = new LinkedHashMap<>();
        Map<String, java.util.TreeMap<Integer, Double>> series = new LinkedHashMap<>();
        extra.forEach((k, v) -> {
            double rounded = Math.abs(v) >= 1000 ? (double) Math.round(v) : v;
            java.util.regex.Matcher e = SERIES_ELEMENT.matcher(k);
            if (e.matches()) {
                series.computeIfAbsent(e.group(1), n -> new java.util.TreeMap<>()).put(Integer.parseInt(e.group(2)), rounded);
            } else {
                x.put(k, rounded);
            }
        });
        series.forEach((name, byIndex) -> x.put(name, List.copyOf(byIndex.values())));
        m.put("extra", x);
        return m;
    }

    /**
     * An element of a time series in a sample's {@code extra}: {@code NAME[INDEX]} (a sample can
     * only carry numbers). {@link #toJson} gathers the elements of each name into one array
     * {@code NAME}, in index order, as BENCHMARKS.md's {@code extra.rss_series}; like every extra,
     * each element is the median over the runs that have it.
     */
    public static final java.util.regex.Pattern SERIES_ELEMENT = java.util.regex.Pattern.compile("(.+)\\[(\\d+)]");

    /** The {@code extra} key of element {@code index} of time series {@code name}. */
    public static String seriesKey(String name, int index) {
        return name + "[" + index + "]";
    }
}
