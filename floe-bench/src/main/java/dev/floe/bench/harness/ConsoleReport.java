package dev.floe.bench.harness;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a {@link SuiteReport} as the console summary: a results table, a ratios table and the
 * suite's goals with their verdicts.
 */
public final class ConsoleReport {

    private ConsoleReport() {}

    /** The summary of one suite, ending with a blank line. */
    public static String render(SuiteReport r, String description) {
        StringBuilder out = new StringBuilder();
        out.append("== ").append(r.suite()).append(": ").append(description).append(" ==\n");
        Map<String, Object> c = r.config();
        out.append(String.format("  %s mode: %s s per run after %s s warm-up, median of %s runs%s%n%n",
                c.get("mode"), Units.number(((Number) c.get("duration_s")).doubleValue()),
                Units.number(((Number) c.get("warmup_s")).doubleValue()), c.get("runs"),
                c.get("wall_seconds") instanceof Number w ? "; suite took " + Units.number(w.doubleValue()) + " s" : ""));

        TextTable results = new TextTable("workload", ">threads", "impl", ">ops/s", ">min", ">max", ">rss", ">heap",
                ">off-heap live/committed", "extra");
        for (Result x : r.results()) {
            MemorySnapshot m = x.memory();
            String offheap = m.offheapCommittedBytes() == 0 && m.offheapLiveBytes() == 0 ? "-"
                    : Units.bytes(m.offheapLiveBytes()) + " / " + Units.bytes(m.offheapCommittedBytes());
            results.row(x.workload(), String.valueOf(x.threads()), x.impl(), Units.rate(x.opsPerSecond().median()),
                    Units.rate(x.opsPerSecond().min()), Units.rate(x.opsPerSecond().max()), Units.bytes(m.rssBytes()),
                    Units.bytes(m.heapUsedBytes()), offheap, extra(x.extra()));
        }
        out.append(results.render());

        if (!r.ratios().isEmpty()) {
            out.append("\n  ratios: median of per-pair ratios of interleaved runs; above 1 = impl better\n");
            TextTable ratios = new TextTable("workload", ">threads", "impl", "vs", "metric", ">ratio");
            for (Ratio x : r.ratios()) {
                ratios.row(x.workload(), String.valueOf(x.threads()), x.impl(), x.vs(), x.metric(),
                        Units.ratio(x.medianRatio()));
            }
            out.append(ratios.render());
        }

        if (!r.targets().isEmpty()) {
            out.append("\n  targets\n");
            TextTable targets = new TextTable("verdict", "goal", "workload", ">threads", ">observed", "", ">target");
            for (TargetCheck t : r.targets()) {
                targets.row(t.met() ? "met" : "MISSED", t.description(), t.workload(), String.valueOf(t.threads()),
                        Units.of(t.metric(), t.observed()), t.comparison(), Units.of(t.metric(), t.threshold()));
            }
            out.append(targets.render());
        }
        return out.append('\n').toString();
    }

    /** A one-line verdict count, e.g. {@code alloc targets: 5 of 7 met}. */
    public static String targetLine(List<SuiteReport> reports) {
        StringBuilder out = new StringBuilder();
        for (SuiteReport r : reports) {
            if (r.targets().isEmpty()) continue;
            long met = r.targets().stream().filter(TargetCheck::met).count();
            out.append(String.format("%s targets: %d of %d met%n", r.suite(), met, r.targets().size()));
        }
        return out.toString();
    }

    /** The extras, except a throughput figure the ops/s column already shows and time series (charted). */
    private static String extra(Map<String, Double> extra) {
        return extra.entrySet().stream()
                .filter(e -> !e.getKey().equals(Metric.OPS_PER_S.name()))
                .filter(e -> !Result.SERIES_ELEMENT.matcher(e.getKey()).matches())
                .map(e -> e.getKey() + "=" + Units.of(e.getKey(), e.getValue()))
                .collect(Collectors.joining(" "));
    }

}
