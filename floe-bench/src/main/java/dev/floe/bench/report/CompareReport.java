package dev.floe.bench.report;

import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.TextTable;
import dev.floe.bench.harness.Units;
import dev.floe.bench.report.RunData.RatioData;
import dev.floe.bench.report.RunData.ResultData;
import dev.floe.bench.report.RunData.SuiteData;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --compare OLD.json}: per-result deltas between an earlier run and a newer one, so that a
 * change can be judged by its effect.
 *
 * <p>Results are matched by suite, workload, implementation and thread count; each row shows the
 * old and new median ops/s and the change in percent, and the same for RSS. A result present on
 * one side only is listed as {@code only in old} / {@code only in new}. A {@code *} marks a new
 * median outside the old run's min..max range, which is the first hint that a change is more
 * than run-to-run noise (it needs {@code --runs} of at least 2 in the old run). Ratios, which
 * cancel machine drift because their runs were interleaved, get a second table.
 */
public final class CompareReport {

    private CompareReport() {}

    /** How a result or ratio fared between the runs. */
    public enum Presence { BOTH, ONLY_OLD, ONLY_NEW }

    /**
     * One matched result.
     *
     * @param before the old result, or {@code null}
     * @param after  the new result, or {@code null}
     */
    public record ResultDelta(String suite, String workload, int threads, String impl, ResultData before,
                              ResultData after) {
        public Presence presence() {
            return before == null ? Presence.ONLY_NEW : after == null ? Presence.ONLY_OLD : Presence.BOTH;
        }

        /** Whether the new median lies outside the old min..max (and that range is not a single value). */
        public boolean outsideOldRange() {
            if (presence() != Presence.BOTH) return false;
            double lo = before.opsPerSecond().min();
            double hi = before.opsPerSecond().max();
            double v = after.opsPerSecond().median();
            return hi > lo && (v < lo || v > hi);
        }
    }

    /** One matched ratio; either side may be {@code null}. */
    public record RatioDelta(String suite, RatioData key, RatioData before, RatioData after) {}

    /** Every result of either run, matched: the new run's order, then what only the old run had. */
    public static List<ResultDelta> results(RunData before, RunData after) {
        Map<String, ResultDelta> rows = new LinkedHashMap<>();
        for (SuiteData s : after.suites()) {
            for (ResultData r : s.results()) {
                rows.put(key(s, r), new ResultDelta(s.suite(), r.workload(), r.threads(), r.impl(), null, r));
            }
        }
        for (SuiteData s : before.suites()) {
            for (ResultData r : s.results()) {
                ResultDelta d = rows.get(key(s, r));
                rows.put(key(s, r), d == null
                        ? new ResultDelta(s.suite(), r.workload(), r.threads(), r.impl(), r, null)
                        : new ResultDelta(d.suite(), d.workload(), d.threads(), d.impl(), r, d.after()));
            }
        }
        return new ArrayList<>(rows.values()); // insertion order: the new run's rows, then old-only ones
    }

    /** Every ratio of either run, matched by suite, cell, pair and metric. */
    public static List<RatioDelta> ratios(RunData before, RunData after) {
        Map<String, RatioDelta> rows = new LinkedHashMap<>();
        for (SuiteData s : after.suites()) {
            for (RatioData r : s.ratios()) rows.put(key(s, r), new RatioDelta(s.suite(), r, null, r));
        }
        for (SuiteData s : before.suites()) {
            for (RatioData r : s.ratios()) {
                RatioDelta d = rows.get(key(s, r));
                rows.put(key(s, r), d == null ? new RatioDelta(s.suite(), r, r, null) : new RatioDelta(s.suite(), d.key(), r, d.after()));
            }
        }
        return new ArrayList<>(rows.values());
    }

    /**
     * The comparison as console text.
     *
     * @param beforeLabel how to name the old run (its file)
     * @param afterLabel  how to name the new run ({@code this run} or its file)
     */
    public static String render(RunData before, RunData after, String beforeLabel, String afterLabel) {
        StringBuilder out = new StringBuilder();
        out.append("== compare: ").append(beforeLabel).append(" (").append(provenance(before)).append(") -> ")
                .append(afterLabel).append(" (").append(provenance(after)).append(") ==\n");
        if (!sameMachine(before.machine(), after.machine())) {
            out.append("  note: different machines: ").append(machine(before.machine())).append(" vs ")
                    .append(machine(after.machine())).append('\n');
        }
        if (before.host() != null || after.host() != null) {
            out.append("  host: ").append(host(before)).append(" -> ").append(host(after)).append('\n');
        }
        out.append("  ops/s and RSS medians; * = new median outside the old run's min..max\n");
        TextTable t = new TextTable("suite", "workload", ">threads", "impl", ">old ops/s", ">new ops/s", ">delta", "",
                ">old rss", ">new rss", ">rss delta");
        int both = 0;
        int onlyOld = 0;
        int onlyNew = 0;
        for (ResultDelta d : results(before, after)) {
            String[] ops;
            String[] rss;
            switch (d.presence()) {
                case BOTH -> {
                    both++;
                    double o = d.before().opsPerSecond().median();
                    double n = d.after().opsPerSecond().median();
                    long ro = d.before().memory().rssBytes();
                    long rn = d.after().memory().rssBytes();
                    ops = new String[] {Units.rate(o), Units.rate(n), Format.percent(o, n), d.outsideOldRange() ? "*" : ""};
                    rss = new String[] {bytes(ro), bytes(rn), ro > 0 && rn > 0 ? Format.percent(ro, rn) : "-"};
                }
                case ONLY_OLD -> {
                    onlyOld++;
                    ops = new String[] {Units.rate(d.before().opsPerSecond().median()), "-", "only in old", ""};
                    rss = new String[] {bytes(d.before().memory().rssBytes()), "-", ""};
                }
                default -> {
                    onlyNew++;
                    ops = new String[] {"-", Units.rate(d.after().opsPerSecond().median()), "only in new", ""};
                    rss = new String[] {"-", bytes(d.after().memory().rssBytes()), ""};
                }
            }
            t.row(d.suite(), d.workload(), String.valueOf(d.threads()), d.impl(), ops[0], ops[1], ops[2], ops[3],
                    rss[0], rss[1], rss[2]);
        }
        out.append(t.render());
        out.append(String.format("  %d results in both, %d only in old, %d only in new%n", both, onlyOld, onlyNew));

        List<RatioDelta> ratios = ratios(before, after);
        if (!ratios.isEmpty()) {
            out.append("\n  ratios (above 1 = impl better)\n");
            TextTable r = new TextTable("suite", "workload", ">threads", "impl", "vs", "metric", ">old", ">new", ">delta");
            for (RatioDelta d : ratios) {
                RatioData k = d.key();
                double o = d.before() == null ? Double.NaN : d.before().medianRatio();
                double n = d.after() == null ? Double.NaN : d.after().medianRatio();
                String delta = d.before() == null ? "only in new" : d.after() == null ? "only in old" : Format.percent(o, n);
                r.row(d.suite(), k.workload(), String.valueOf(k.threads()), k.impl(), k.vs(), k.metric(),
                        Units.ratio(o), Units.ratio(n), delta);
            }
            out.append(r.render());
        }
        return out.append('\n').toString();
    }

    private static String key(SuiteData s, ResultData r) {
        return s.suite() + "\u0000" + r.workload() + "\u0000" + r.impl() + "\u0000" + r.threads();
    }

    private static String key(SuiteData s, RatioData r) {
        return s.suite() + "\u0000" + r.workload() + "\u0000" + r.threads() + "\u0000" + r.impl() + "\u0000" + r.vs()
                + "\u0000" + r.metric();
    }

    private static String bytes(long v) {
        return v > 0 ? Units.bytes(v) : "-";
    }

    private static String provenance(RunData run) {
        String c = run.gitCommit() == null ? "?" : run.gitCommit();
        return "commit " + (c.length() > 10 ? c.substring(0, 10) : c) + ", " + run.started();
    }

    /** The host's activity during a run, or why there is none (files from before it was recorded). */
    private static String host(RunData run) {
        return run.host() != null ? run.host().describe() : "not recorded";
    }

    private static boolean sameMachine(Machine a, Machine b) {
        return a.cores() == b.cores() && a.memoryBytes() == b.memoryBytes() && String.valueOf(a.os()).equals(b.os())
                && String.valueOf(a.jdk()).equals(b.jdk());
    }

    private static String machine(Machine m) {
        return m.cores() + " cores, " + Units.bytes(m.memoryBytes()) + ", JDK " + m.jdk();
    }
}
