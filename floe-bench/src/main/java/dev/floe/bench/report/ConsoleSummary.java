package dev.floe.bench.report;

import dev.floe.bench.harness.TextTable;
import dev.floe.bench.harness.Units;
import dev.floe.bench.report.RunData.RatioData;
import dev.floe.bench.report.RunData.SuiteData;
import dev.floe.bench.report.RunData.TargetData;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The short summary printed at the end of {@code ./floe bench}: per suite, its headline ratios as
 * one small matrix (a row per workload and thread count, a column per compared pair and metric)
 * and every goal with its verdict. The per-suite tables above it hold the details.
 */
public final class ConsoleSummary {

    private ConsoleSummary() {}

    /** The summary of a run, ending with a blank line; empty when no suite ran. */
    public static String render(RunData run) {
        if (run.suites().isEmpty()) return "";
        StringBuilder out = new StringBuilder("== summary ==\n");
        for (SuiteData s : run.suites()) {
            long met = s.targets().stream().filter(TargetData::met).count();
            out.append(s.suite()).append(": ").append(s.results().size()).append(" results");
            if (!s.targets().isEmpty()) out.append(", targets ").append(met).append(" of ").append(s.targets().size()).append(" met");
            out.append('\n');
            if (!s.ratios().isEmpty()) out.append(ratioMatrix(s));
            for (TargetData t : s.targets()) {
                out.append(String.format("  %-6s  %s (%s t=%d): %s%n", t.met() ? "met" : "MISSED", t.description(),
                        t.workload(), t.threads(), Units.of(t.metric(), t.observed())));
            }
        }
        if (run.host() != null) {
            out.append("host: ").append(run.machine().cores()).append(" cores; this invocation took ")
                    .append(run.host().describe()).append('\n');
        }
        return out.append('\n').toString();
    }

    /** Ratios as rows of (workload, threads) by columns of (impl, vs, metric). */
    static String ratioMatrix(SuiteData s) {
        record Pair(String impl, String vs, String metric) {}
        record Row(String workload, int threads) {}
        LinkedHashSet<Pair> pairs = new LinkedHashSet<>();
        LinkedHashSet<Row> rows = new LinkedHashSet<>();
        Map<Row, Map<Pair, Double>> values = new LinkedHashMap<>();
        for (RatioData r : s.ratios()) {
            Pair p = new Pair(r.impl(), r.vs(), r.metric());
            Row row = new Row(r.workload(), r.threads());
            pairs.add(p);
            rows.add(row);
            values.computeIfAbsent(row, k -> new LinkedHashMap<>()).put(p, r.medianRatio());
        }
        boolean oneImpl = pairs.stream().map(Pair::impl).distinct().count() == 1;
        List<String> headers = new ArrayList<>();
        headers.add(oneImpl ? pairs.getFirst().impl() + " vs" : "impl/vs");
        for (Pair p : pairs) {
            String h = (oneImpl ? p.vs() : p.impl() + "/" + p.vs()) + (p.metric().equals("ops_per_s") ? "" : " " + p.metric().replace("_bytes", ""));
            headers.add(">" + h);
        }
        TextTable t = new TextTable(headers.toArray(String[]::new));
        for (Row row : rows) {
            List<String> cells = new ArrayList<>();
            cells.add(row.workload() + " t=" + row.threads());
            for (Pair p : pairs) {
                Double v = values.get(row).get(p);
                cells.add(v == null ? "" : Units.ratio(v));
            }
            t.row(cells.toArray(String[]::new));
        }
        return t.render();
    }
}
