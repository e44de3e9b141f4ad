/**
 * What a benchmark run leaves behind for people: the HTML report with its charts, the console
 * summary, and the comparison of two runs.
 *
 * <h2>One source of truth</h2>
 * Everything here renders from {@link dev.floe.bench.report.RunData}, the typed form of the JSON
 * document of BENCHMARKS.md, not from the harness objects. The report folder is written as
 * {@code results.json} first and the page is rendered from that file
 * ({@link dev.floe.bench.report.ReportFolder}); {@code --compare} reads an earlier file the same
 * way. So the page, the summary and a comparison can only show what the JSON holds, an old
 * {@code results.json} renders and compares like a fresh one, and whatever a suite adds to
 * {@code extra} (numbers, or arrays of numbers drawn as time series) reaches the page without
 * changes here.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link dev.floe.bench.report.HtmlReport}: {@code index.html}, self-contained well-formed
 *       XHTML (inline CSS, no script), charts beside it in {@code charts/}.</li>
 *   <li>{@link dev.floe.bench.report.Charts}: PNG charts with XChart in headless AWT: throughput
 *       per implementation and workload (log axis past a 10x spread), memory per implementation,
 *       time series from {@code extra}.</li>
 *   <li>{@link dev.floe.bench.report.ConsoleSummary}: the closing summary of {@code ./floe bench}.</li>
 *   <li>{@link dev.floe.bench.report.CompareReport}: per-result deltas for {@code --compare}.</li>
 * </ul>
 */
package dev.floe.bench.report;
