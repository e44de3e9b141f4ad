package dev.floe.bench.map;

import dev.floe.bench.harness.Json;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Stats;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A stand-alone driver of the rollup comparison, outside the suite harness: runs
 * {@link RollupIngest#main} in a fresh JVM per run, {@code floe-oak} and {@code cslm} alternating
 * (A B A B ...), and prints every run, the medians and the median of the per-pair ratios.
 *
 * <p>Arguments {@code name=value}: {@code runs} (3), {@code budgetMb} (RAM budget per JVM, 1024),
 * {@code oakHeapMb} (floe-oak's heap; its off-heap budget is the rest; default an eighth of the
 * budget, at least 64), {@code sameXmx} (true: both get {@code -Xmx} = budget, floe-oak's
 * off-heap budget on top), and everything {@link RollupIngest#main} takes ({@code tuples},
 * {@code seed}, {@code granularityMs}, {@code sketchBytes}, {@code eventsPerSecond}, {@code profile}, {@code prefix}, {@code warmupSeconds},
 * {@code warmup}), passed on. The JVMs get G1, {@code -Xms} = {@code -Xmx}, pre-touched, as the
 * map suite's workers do.
 */
public final class RollupCompare {

    private RollupCompare() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = RollupIngest.parse(args);
        int runs = Integer.parseInt(a.getOrDefault("runs", "3"));
        long budget = Long.parseLong(a.getOrDefault("budgetMb", "1024"));
        long oakHeap = Long.parseLong(a.getOrDefault("oakHeapMb", String.valueOf(Math.max(64, budget / 8))));
        boolean sameXmx = Boolean.parseBoolean(a.getOrDefault("sameXmx", "false"));
        long oakOffheap = sameXmx ? Long.parseLong(a.getOrDefault("offheapMb", String.valueOf(budget))) : budget - oakHeap;
        List<String> pass = new ArrayList<>();
        for (Map.Entry<String, String> e : a.entrySet()) {
            if (List.of("tuples", "seed", "granularityMs", "sketchBytes", "eventsPerSecond", "warmup", "warmupSeconds", "profile", "prefix").contains(e.getKey())) {
                pass.add(e.getKey() + "=" + e.getValue());
            }
        }
        System.out.printf(Locale.ROOT, "rollup: %d runs, budget %d MiB: cslm -Xmx%dm, floe-oak -Xmx%dm + %d MiB off-heap; %s%n",
                runs, budget, budget, sameXmx ? budget : oakHeap, oakOffheap, pass);
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        for (int r = 0; r < runs; r++) {
            for (String impl : List.of(RollupIndex.OAK, RollupIndex.CSLM)) {
                long heap = impl.equals(RollupIndex.CSLM) || sameXmx ? budget : oakHeap;
                List<String> cmd = new ArrayList<>();
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.addAll(List.of("-XX:+UseG1GC", "-Xms" + heap + "m", "-Xmx" + heap + "m", "-XX:+AlwaysPreTouch",
                        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                        RollupIngest.class.getName(), "impl=" + impl, "offheapMb=" + oakOffheap));
                cmd.addAll(pass);
                Sample s = runOne(cmd);
                samples.computeIfAbsent(impl, k -> new ArrayList<>()).add(s);
                System.out.println(line(impl, r + 1, s));
            }
        }
        System.out.println("medians:");
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            List<Sample> l = e.getValue();
            System.out.printf(Locale.ROOT, "  %-9s %,12.0f tuples/s  overhead %6.1f%%  used/row %7.0f B  heap/row %7.0f B  rows %,d%n",
                    e.getKey(), median(l, s -> s.metric(Metric.OPS_PER_S.name())),
                    100 * median(l, s -> s.metrics().getOrDefault(RollupIngest.METADATA_OVERHEAD.name(), Double.NaN)),
                    median(l, s -> s.extra().getOrDefault("used_bytes_per_row", Double.NaN)),
                    median(l, s -> s.extra().getOrDefault("heap_bytes_per_row", Double.NaN)),
                    (long) median(l, s -> s.extra().get("rows")));
        }
        List<Sample> oak = samples.get(RollupIndex.OAK), cslm = samples.get(RollupIndex.CSLM);
        double thr = Stats.medianRatio(values(oak, Metric.OPS_PER_S), values(cslm, Metric.OPS_PER_S), Metric.OPS_PER_S);
        double ovh = Stats.medianRatio(values(oak, RollupIngest.METADATA_OVERHEAD), values(cslm, RollupIngest.METADATA_OVERHEAD),
                RollupIngest.METADATA_OVERHEAD);
        System.out.printf(Locale.ROOT, "ratios (median of pairs): throughput floe-oak/cslm %.2fx (target >= 1.8), "
                + "overhead cslm/floe-oak %.2fx (target >= 2, i.e. floe-oak at most half)%n", thr, ovh);
    }

    private static String line(String impl, int run, Sample s) {
        return String.format(Locale.ROOT, "  run %d %-9s %,12.0f tuples/s  overhead %6.1f%%  rows %,d  heap %,d B  off-heap %,d B  raw %,d B  gc %.0f ms / %.0f",
                run, impl, s.metric(Metric.OPS_PER_S.name()),
                100 * s.metrics().getOrDefault(RollupIngest.METADATA_OVERHEAD.name(), Double.NaN),
                s.extra().get("rows").longValue(), s.extra().get("heap_bytes").longValue(),
                s.extra().get("offheap_footprint_bytes").longValue(), s.extra().get("raw_bytes").longValue(),
                s.extra().get("gc_ms"), s.extra().get("gc_count"));
    }

    private static double[] values(List<Sample> l, Metric m) {
        return l.stream().mapToDouble(s -> s.metrics().getOrDefault(m.name(), 0.0)).toArray();
    }

    private static double median(List<Sample> l, java.util.function.ToDoubleFunction<Sample> f) {
        return Stats.median(l.stream().mapToDouble(f).toArray());
    }

    private static Sample runOne(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Sample s = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l = in.readLine(); l != null; l = in.readLine()) {
                if (l.startsWith(RollupIngest.RESULT_PREFIX)) {
                    s = Sample.fromJson(Json.parseObject(l.substring(RollupIngest.RESULT_PREFIX.length())));
                } else {
                    System.out.println(l);
                }
            }
        }
        int rc = p.waitFor();
        if (s == null) throw new IllegalStateException("the rollup JVM exited (" + rc + ") without a result: " + cmd);
        return s;
    }
}
