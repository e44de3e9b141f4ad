package dev.floe.bench.report;

import dev.floe.bench.harness.BuildInfo;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Units;
import dev.floe.bench.report.Charts.ChartFile;
import dev.floe.bench.report.RunData.RatioData;
import dev.floe.bench.report.RunData.ResultData;
import dev.floe.bench.report.RunData.SuiteData;
import dev.floe.bench.report.RunData.TargetData;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code index.html}: one page with everything a reader needs to judge a run.
 *
 * <p>Contents, top to bottom: provenance (Floe version, git commit, start time), the command that
 * reproduces the run, the machine (cores, memory, OS, JDK), a summary of every suite's goals
 * (met / missed), then per suite its configuration, goals, ratio table (each ratio a goal is
 * about carries the goal and its mark), charts, and the table of every result with median, min
 * and max ops/s and the memory figures.
 *
 * <p>The page is self-contained: inline CSS, no script, no fonts or images from the network.
 * Charts are PNG files in {@code charts/} beside it (see {@link Charts}), referenced by relative
 * path, so the folder is the unit to copy. The markup is well-formed XHTML (every element
 * closed, attributes quoted, no named entities besides the XML five), so an XML parser reads it
 * as well as a browser does; all text from the run is escaped.
 */
public final class HtmlReport {

    /** The page's file name in the report folder. */
    public static final String PAGE = "index.html";

    private final RunData run;
    private final String command;
    private final Function<String, String> descriptions;
    private final StringBuilder out = new StringBuilder();

    private HtmlReport(RunData run, String command, Function<String, String> descriptions) {
        this.run = run;
        this.command = command;
        this.descriptions = descriptions;
    }

    /**
     * Writes {@code index.html} and its charts into {@code dir}. PNG files left in
     * {@code dir/charts/} by an earlier report are removed first. A chart that cannot be drawn
     * (for example, a JDK without fonts) is named on the page instead; the tables are always
     * written.
     *
     * @param command      the command line that produced the run, shown as the way to reproduce it
     * @param descriptions suite name -> one-line description, or {@code null} when unknown
     * @return the page and what went into it
     */
    public static Page write(RunData run, String command, Function<String, String> descriptions, Path dir)
            throws IOException {
        Files.createDirectories(dir);
        clearCharts(dir.resolve(Charts.FOLDER));
        Map<String, List<ChartFile>> charts = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        Set<String> taken = new HashSet<>();
        for (SuiteData s : run.suites()) {
            Charts.Rendered r = Charts.render(s, dir, taken);
            charts.put(s.suite(), r.charts());
            if (!r.failures().isEmpty()) failures.put(s.suite(), String.join("; ", r.failures()));
        }
        Path page = dir.resolve(PAGE);
        Path tmp = dir.resolve(PAGE + ".tmp");
        Files.writeString(tmp, page(run, command, descriptions, charts, failures), StandardCharsets.UTF_8);
        Files.move(tmp, page, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return new Page(page, charts.values().stream().flatMap(List::stream).toList(), failures);
    }

    /**
     * A written page.
     *
     * @param charts        every chart it shows, in page order
     * @param chartFailures suite -> why its charts could not be drawn
     */
    public record Page(Path file, List<ChartFile> charts, Map<String, String> chartFailures) {}

    /** The page's markup, given the charts drawn per suite and the reason where drawing failed. */
    static String page(RunData run, String command, Function<String, String> descriptions,
                       Map<String, List<ChartFile>> charts, Map<String, String> chartFailures) {
        HtmlReport h = new HtmlReport(run, command, descriptions);
        h.document(charts, chartFailures);
        return h.out.toString();
    }

    private void document(Map<String, List<ChartFile>> charts, Map<String, String> chartFailures) {
        out.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n")
                .append("<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<title>").append(esc("Floe benchmark report, " + run.started())).append("</title>\n")
                .append("<style>").append(CSS).append("</style>\n</head>\n<body>\n");
        out.append("<h1>Floe benchmark report</h1>\n");
        out.append("<p class=\"lead\">Floe ").append(esc(run.floeVersion())).append(", commit <code>")
                .append(esc(run.gitCommit())).append("</code>, started ").append(esc(run.started())).append(".</p>\n");
        reproduce();
        machine();
        summary();
        for (SuiteData s : run.suites()) {
            suite(s, charts.getOrDefault(s.suite(), List.of()), chartFailures.get(s.suite()));
        }
        out.append("<footer><p>Written by <code>./floe bench</code>. The same numbers, unrounded where the "
                + "table rounds, are in <a href=\"results.json\">results.json</a> (format: BENCHMARKS.md). "
                + "Ratios are medians of per-pair ratios of interleaved runs; above 1 means the first "
                + "implementation did better.</p></footer>\n");
        out.append("</body>\n</html>\n");
    }

    private void reproduce() {
        out.append("<h2>Reproduce</h2>\n<pre class=\"cmd\">");
        String commit = run.gitCommit();
        if (commit != null && !commit.equals(BuildInfo.UNKNOWN)) {
            out.append(esc("git checkout " + commit)).append('\n');
        }
        out.append(esc(command)).append("</pre>\n");
    }

    private void machine() {
        Machine m = run.machine();
        out.append("<h2>Machine</h2>\n<table class=\"kv\">\n");
        kv("cores", String.valueOf(m.cores()));
        kv("memory", m.memoryBytes() > 0 ? Units.bytes(m.memoryBytes()) : "unknown");
        kv("OS", m.os());
        kv("JDK", m.jdk());
        if (run.host() != null) kv("during this run", run.host().describe());
        out.append("</table>\n");
    }

    private void kv(String key, String value) {
        out.append("<tr><th>").append(esc(key)).append("</th><td>").append(esc(value)).append("</td></tr>\n");
    }

    /** Per suite: mode, result count, goals met. */
    private void summary() {
        out.append("<h2>Summary</h2>\n<table>\n<thead><tr><th>suite</th><th>mode</th><th class=\"n\">results</th>"
                + "<th class=\"n\">ratios</th><th>targets</th></tr></thead>\n<tbody>\n");
        for (SuiteData s : run.suites()) {
            long met = s.targets().stream().filter(TargetData::met).count();
            out.append("<tr><td><a href=\"#").append(esc(anchor(s.suite()))).append("\">").append(esc(s.suite()))
                    .append("</a></td><td>").append(esc(Format.config(s.config().get("mode")))).append("</td>")
                    .append("<td class=\"n\">").append(s.results().size()).append("</td>")
                    .append("<td class=\"n\">").append(s.ratios().size()).append("</td><td>");
            if (s.targets().isEmpty()) {
                out.append("none set");
            } else {
                out.append(met).append(" of ").append(s.targets().size()).append(" met");
                out.append("<ul class=\"targets\">");
                for (TargetData t : s.targets()) {
                    out.append("<li>").append(mark(t.met())).append(' ').append(esc(t.description()))
                            .append(": ").append(esc(Units.of(t.metric(), t.observed()))).append("</li>");
                }
                out.append("</ul>");
            }
            out.append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n");
    }

    private void suite(SuiteData s, List<ChartFile> charts, String chartFailure) {
        out.append("<section id=\"").append(esc(anchor(s.suite()))).append("\">\n<h2>").append(esc(s.suite()));
        String description = descriptions.apply(s.suite());
        if (description != null) out.append(": ").append(esc(description));
        out.append("</h2>\n<p>").append(esc(Format.modeLine(s.config()))).append(".</p>\n");
        config(s.config());
        targets(s.targets());
        ratios(s);
        out.append("<h3>Charts</h3>\n");
        if (chartFailure != null) {
            out.append("<p class=\"warn\">Some charts could not be drawn: ").append(esc(chartFailure)).append("</p>\n");
        } else if (charts.isEmpty()) {
            out.append("<p>No figures to chart.</p>\n");
        }
        for (ChartFile c : charts) {
            out.append("<figure><img src=\"").append(esc(c.file())).append("\" alt=\"").append(esc(c.title()))
                    .append("\"/><figcaption>").append(esc(c.title())).append("</figcaption></figure>\n");
        }
        results(s);
        out.append("</section>\n");
    }

    /** The suite's configuration apart from the mode line's fields. */
    private void config(Map<String, Object> config) {
        Set<String> shown = Set.of("mode", "duration_s", "warmup_s", "runs");
        List<Map.Entry<String, Object>> rest = config.entrySet().stream().filter(e -> !shown.contains(e.getKey())).toList();
        if (rest.isEmpty()) return;
        out.append("<details><summary>configuration</summary>\n<table class=\"kv\">\n");
        rest.forEach(e -> kv(e.getKey(), e.getValue() instanceof Number n && e.getKey().endsWith("bytes")
                ? Units.bytes(n.doubleValue()) + " (" + Format.config(n) + ")" : Format.config(e.getValue())));
        out.append("</table>\n</details>\n");
    }

    private void targets(List<TargetData> targets) {
        if (targets.isEmpty()) return;
        out.append("<h3>Targets</h3>\n<table>\n<thead><tr><th>verdict</th><th>goal</th><th>workload</th>"
                + "<th class=\"n\">threads</th><th class=\"n\">observed</th><th></th><th class=\"n\">target</th>"
                + "</tr></thead>\n<tbody>\n");
        for (TargetData t : targets) {
            out.append("<tr class=\"target\"><td>").append(mark(t.met())).append("</td><td>").append(esc(t.description()))
                    .append("</td><td>").append(esc(t.workload())).append("</td><td class=\"n\">").append(t.threads())
                    .append("</td><td class=\"n\">").append(esc(Units.of(t.metric(), t.observed())))
                    .append("</td><td>").append(esc(symbol(t.comparison()))).append("</td><td class=\"n\">")
                    .append(esc(Units.of(t.metric(), t.threshold()))).append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n");
    }

    private void ratios(SuiteData s) {
        if (s.ratios().isEmpty()) return;
        out.append("<h3>Ratios</h3>\n<table>\n<thead><tr><th>workload</th><th class=\"n\">threads</th><th>impl</th>"
                + "<th>vs</th><th>metric</th><th class=\"n\">ratio</th><th>target</th></tr></thead>\n<tbody>\n");
        for (RatioData r : s.ratios()) {
            List<TargetData> goals = s.targets().stream().filter(t -> t.concerns(r)).toList();
            String tone = !Double.isFinite(r.medianRatio()) ? "" : r.medianRatio() >= 1 ? " better" : " worse";
            out.append("<tr><td>").append(esc(r.workload())).append("</td><td class=\"n\">").append(r.threads())
                    .append("</td><td>").append(esc(r.impl())).append("</td><td>").append(esc(r.vs()))
                    .append("</td><td>").append(esc(r.metric())).append("</td><td class=\"n").append(tone).append("\">")
                    .append(esc(Units.ratio(r.medianRatio()))).append("</td><td>");
            out.append(goals.stream().map(t -> esc(symbol(t.comparison()) + " " + Units.of(t.metric(), t.threshold()))
                    + " " + mark(t.met())).collect(Collectors.joining("<br/>")));
            out.append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n");
    }

    private void results(SuiteData s) {
        out.append("<h3>Results</h3>\n<table class=\"results\">\n<thead><tr><th>workload</th><th class=\"n\">threads</th>"
                + "<th>impl</th><th class=\"n\">ops/s median</th><th class=\"n\">min</th><th class=\"n\">max</th>"
                + "<th class=\"n\">RSS</th><th class=\"n\">heap used</th><th class=\"n\">off-heap committed</th>"
                + "<th class=\"n\">off-heap live</th><th>extra</th></tr></thead>\n<tbody>\n");
        for (ResultData r : s.results()) {
            MemorySnapshot m = r.memory();
            out.append("<tr class=\"result\" data-suite=\"").append(esc(s.suite())).append("\" data-workload=\"")
                    .append(esc(r.workload())).append("\" data-impl=\"").append(esc(r.impl()))
                    .append("\" data-threads=\"").append(r.threads()).append("\">");
            cell(r.workload(), false);
            cell(String.valueOf(r.threads()), true);
            cell(r.impl(), false);
            cell(Units.rate(r.opsPerSecond().median()), true);
            cell(Units.rate(r.opsPerSecond().min()), true);
            cell(Units.rate(r.opsPerSecond().max()), true);
            cell(bytesOrDash(m.rssBytes()), true);
            cell(bytesOrDash(m.heapUsedBytes()), true);
            cell(bytesOrDash(m.offheapCommittedBytes()), true);
            cell(bytesOrDash(m.offheapLiveBytes()), true);
            cell(extra(r), false);
            out.append("</tr>\n");
        }
        out.append("</tbody>\n</table>\n");
    }

    private void cell(String text, boolean numeric) {
        out.append(numeric ? "<td class=\"n\">" : "<td>").append(esc(text)).append("</td>");
    }

    /** Scalar extras as {@code key=value}; a time series as its length (it is charted). */
    private static String extra(ResultData r) {
        List<String> parts = new ArrayList<>();
        r.scalarExtras().forEach((k, v) -> {
            if (!k.equals("ops_per_s")) parts.add(k + "=" + Units.of(k, v));
        });
        r.seriesExtras().forEach((k, v) -> parts.add(k + ": " + v.length + " samples (charted)"));
        return String.join(" ", parts);
    }

    private static String bytesOrDash(long v) {
        return v == 0 ? "-" : Units.bytes(v);
    }

    private static String mark(boolean met) {
        return met ? "<span class=\"met\">&#10004; met</span>" : "<span class=\"missed\">&#10008; missed</span>";
    }

    private static String symbol(String comparison) {
        return switch (comparison == null ? "" : comparison) {
            case ">=" -> "\u2265";
            case "<=" -> "\u2264";
            default -> comparison == null ? "" : comparison;
        };
    }

    private static String anchor(String suite) {
        return "suite-" + suite.replaceAll("[^A-Za-z0-9_-]+", "-");
    }

    /**
     * Text or attribute content escaped for HTML and XML: the five markup characters become
     * references, and characters XML forbids (control characters, lone surrogates) become U+FFFD.
     */
    static String esc(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || Character.isSurrogate(c)
                            || c == '\uFFFE' || c == '\uFFFF') {
                        b.append('\uFFFD');
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    /** Removes the PNG files of an earlier report from the charts folder (nothing else). */
    private static void clearCharts(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) return;
        try (DirectoryStream<Path> old = Files.newDirectoryStream(folder, "*.png")) {
            for (Path p : old) Files.deleteIfExists(p);
        }
    }

    private static final String CSS = """
            body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;max-width:1400px;\
            padding:0 1em;color:#1d1d1f;line-height:1.4}
            h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
            .lead{color:#555;margin-top:0}
            pre.cmd{background:#f4f4f6;padding:.8em 1em;border-radius:4px;overflow-x:auto}
            table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
            th,td{border:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}
            thead th{background:#f4f4f6;position:sticky;top:0}
            table.kv th{background:#f4f4f6;font-weight:600}
            .n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
            td.better{color:#176b2c}td.worse{color:#a4262c}
            .met{color:#176b2c;font-weight:600;white-space:nowrap}.missed{color:#a4262c;font-weight:600;white-space:nowrap}
            ul.targets{margin:.3em 0 0;padding-left:1.2em}
            table.results tbody tr:nth-child(even){background:#fafafa}
            figure{margin:1em 0}img{max-width:100%;height:auto;border:1px solid #eee}
            figcaption{color:#555;font-size:.85em}
            .warn{color:#a4262c}
            footer{margin-top:3em;color:#555;font-size:.85em;border-top:1px solid #ddd}
            """;
}
