package dev.floe.bench.report;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.report.RunData.ResultData;
import dev.floe.bench.report.RunData.SuiteData;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The PNG charts of a suite, drawn with XChart in headless AWT:
 * <ul>
 *   <li>{@code SUITE-throughput.png}: median ops/s, one bar per implementation grouped by
 *       workload (and thread count); the y axis turns logarithmic when the largest bar is more
 *       than {@value #LOG_SPAN}x the smallest, so that slow and fast peers both stay readable.</li>
 *   <li>{@code SUITE-memory.png}: per implementation, the largest RSS, heap used, off-heap
 *       committed and off-heap live figure over the suite's workloads (only the figures some
 *       implementation reported; no chart when none did).</li>
 *   <li>{@code SUITE-series-WORKLOAD-tN-KEY.png}: one line chart per time series a suite
 *       recorded in {@code extra} (an array of numbers, e.g. {@code rss_series}), one line per
 *       implementation, x = sample number.</li>
 * </ul>
 * Byte figures are drawn in MiB, rates in ops/s, k ops/s or M ops/s, whichever keeps the
 * numbers short.
 */
public final class Charts {

    /** Above this max/min spread a chart's value axis is logarithmic. */
    static final double LOG_SPAN = 10;

    /** Sub-folder of the report that holds the charts. */
    public static final String FOLDER = "charts";

    private static final int HEIGHT = 480;
    private static final int MIN_WIDTH = 720;
    private static final int MAX_WIDTH = 1800;
    private static final double MIB = 1 << 20;

    static {
        // Rendering only: no display, no window system (servers, CI, ssh sessions).
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    /**
     * A chart written beside the report.
     *
     * @param file  path relative to the report folder, with {@code /} separators ({@code charts/…png})
     * @param title what the chart shows, for the page's caption and alt text
     */
    public record ChartFile(String file, String title) {}

    private Charts() {}

    /**
     * The charts of one suite that were drawn, and why the others could not be.
     *
     * @param failures one line per chart that failed (its name and the error)
     */
    public record Rendered(List<ChartFile> charts, List<String> failures) {}

    /**
     * Draws every chart of one suite into {@code reportDir/charts/}. A chart that fails (bad
     * data, or an AWT without fonts) is reported in {@link Rendered#failures()}; the others are
     * still drawn.
     *
     * @param taken file names already used by other suites (updated), so that names stay unique
     */
    public static Rendered render(SuiteData suite, Path reportDir, Set<String> taken) throws IOException {
        Path folder = reportDir.resolve(FOLDER);
        Files.createDirectories(folder);
        List<ChartFile> out = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        Map<String, Supplier<Chart<?, ?>>> charts = new LinkedHashMap<>();
        charts.put(suite.suite() + "-throughput", () -> throughput(suite));
        charts.put(suite.suite() + "-memory", () -> memory(suite));
        series(suite).forEach((stem, chart) -> charts.put(stem, () -> chart));
        for (Map.Entry<String, Supplier<Chart<?, ?>>> e : charts.entrySet()) {
            try {
                Chart<?, ?> c = e.getValue().get();
                if (c != null) out.add(save(c, folder, name(e.getKey(), taken)));
            } catch (RuntimeException | LinkageError | InternalError | java.awt.AWTError failure) {
                failures.add(e.getKey() + ": " + failure);
            }
        }
        return new Rendered(out, failures);
    }

    /** Median ops/s per implementation, grouped by workload x threads; null without a positive value. */
    static CategoryChart throughput(SuiteData suite) {
        List<ResultData> results = suite.results();
        boolean severalThreadCounts = results.stream().mapToInt(ResultData::threads).distinct().count() > 1;
        LinkedHashSet<String> cells = new LinkedHashSet<>();
        LinkedHashSet<String> impls = new LinkedHashSet<>();
        for (ResultData r : results) {
            cells.add(cellLabel(r, severalThreadCounts));
            impls.add(r.impl());
        }
        double max = max(results, r -> r.opsPerSecond().median());
        if (!(max > 0)) return null;
        RateUnit unit = RateUnit.of(max);
        Map<String, List<Double>> bars = new LinkedHashMap<>();
        for (String impl : impls) {
            List<Double> values = new ArrayList<>();
            for (String cell : cells) {
                values.add(results.stream()
                        .filter(r -> r.impl().equals(impl) && cellLabel(r, severalThreadCounts).equals(cell))
                        .map(r -> r.opsPerSecond().median() / unit.divisor()).findFirst().orElse(Double.NaN));
            }
            bars.put(impl, values);
        }
        return categoryChart(suite.suite() + ": throughput (median of runs)", "workload", unit.label(),
                List.copyOf(cells), bars);
    }

    /** Peak memory figures per implementation; null when no implementation reported any. */
    static CategoryChart memory(SuiteData suite) {
        Map<String, ToDoubleFunction<MemorySnapshot>> figures = new LinkedHashMap<>();
        figures.put("RSS", MemorySnapshot::rssBytes);
        figures.put("heap used", MemorySnapshot::heapUsedBytes);
        figures.put("off-heap committed", MemorySnapshot::offheapCommittedBytes);
        figures.put("off-heap live", MemorySnapshot::offheapLiveBytes);
        LinkedHashSet<String> impls = new LinkedHashSet<>();
        suite.results().forEach(r -> impls.add(r.impl()));
        Map<String, List<Double>> bars = new LinkedHashMap<>();
        figures.forEach((label, f) -> {
            List<Double> values = new ArrayList<>();
            for (String impl : impls) {
                values.add(suite.results().stream().filter(r -> r.impl().equals(impl))
                        .mapToDouble(r -> f.applyAsDouble(r.memory())).max().orElse(0) / MIB);
            }
            if (values.stream().anyMatch(v -> v > 0)) bars.put(label, values);
        });
        if (bars.isEmpty()) return null;
        return categoryChart(suite.suite() + ": memory per implementation (largest over workloads)",
                "implementation", "MiB", List.copyOf(impls), bars);
    }

    /** One line chart per (workload, threads, extra key) that holds a time series, by file stem. */
    static Map<String, XYChart> series(SuiteData suite) {
        record Key(String workload, int threads, String key) {}
        Map<Key, Map<String, double[]>> lines = new LinkedHashMap<>();
        for (ResultData r : suite.results()) {
            r.seriesExtras().forEach((k, v) ->
                    lines.computeIfAbsent(new Key(r.workload(), r.threads(), k), x -> new LinkedHashMap<>()).put(r.impl(), v));
        }
        Map<String, XYChart> charts = new LinkedHashMap<>();
        lines.forEach((key, byImpl) -> {
            boolean bytes = isBytes(key.key());
            String title = suite.suite() + ": " + key.key() + " over time, " + key.workload() + " t=" + key.threads();
            XYChart c = new XYChartBuilder().width(MIN_WIDTH + 160).height(HEIGHT).title(title)
                    .xAxisTitle("sample").yAxisTitle(bytes ? key.key() + " (MiB)" : key.key()).build();
            style(c.getStyler());
            c.getStyler().setYAxisDecimalPattern("#,##0.##");
            c.getStyler().setXAxisDecimalPattern("#,##0");
            byImpl.forEach((impl, values) -> {
                double[] x = new double[values.length];
                double[] y = new double[values.length];
                for (int i = 0; i < values.length; i++) {
                    x[i] = i;
                    y[i] = bytes ? values[i] / MIB : values[i];
                }
                XYSeries s = c.addSeries(impl, x, y);
                s.setMarker(values.length > 60 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
            });
            charts.put(suite.suite() + "-series-" + key.workload() + "-t" + key.threads() + "-" + key.key(), c);
        });
        return charts;
    }

    /**
     * Grouped bars; NaN and (on a log axis) non-positive values are left out as gaps.
     *
     * @param bars series name -> one value per category
     */
    private static CategoryChart categoryChart(String title, String xTitle, String yTitle, List<String> categories,
                                               Map<String, List<Double>> bars) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        for (List<Double> values : bars.values()) {
            for (double v : values) {
                if (v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        boolean log = hi / lo > LOG_SPAN;
        double floor = log ? Math.pow(10, Math.floor(Math.log10(lo))) : 0;
        double ceiling = log ? Math.pow(10, Math.ceil(Math.log10(hi))) : 0;
        int width = Math.clamp(220 + 20L * categories.size() * bars.size() + 40L * categories.size(), MIN_WIDTH, MAX_WIDTH);
        CategoryChart c = new CategoryChartBuilder().width(width).height(HEIGHT).title(title + (log ? ", log scale" : ""))
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(c.getStyler());
        c.getStyler().setYAxisLogarithmic(log);
        if (log) {
            // bars are anchored at 0 unless the axis has an explicit minimum; a log axis needs one > 0
            c.getStyler().setYAxisMin(floor);
            c.getStyler().setYAxisMax(ceiling);
        }
        c.getStyler().setYAxisDecimalPattern("#,##0.###");
        c.getStyler().setPlotGridVerticalLinesVisible(false);
        c.getStyler().setAvailableSpaceFill(0.8);
        if (categories.size() > 4) c.getStyler().setXAxisLabelRotation(20);
        bars.forEach((name, values) -> {
            List<Double> y = values.stream().map(v -> Double.isFinite(v) && (v > 0 || !log) ? v : null).toList();
            c.addSeries(name, categories, y);
        });
        return c;
    }

    private static void style(AxesChartStyler st) {
        st.setChartBackgroundColor(Color.WHITE);
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setLegendBorderColor(Color.WHITE);
        st.setPlotBorderVisible(false);
        st.setToolTipsEnabled(false);
        st.setLocale(Locale.ROOT);
    }

    private static ChartFile save(Chart<?, ?> chart, Path folder, String stem) throws IOException {
        Path file = folder.resolve(stem + ".png");
        Files.write(file, BitmapEncoder.getBitmapBytes(chart, BitmapFormat.PNG));
        return new ChartFile(FOLDER + "/" + file.getFileName(), chart.getTitle());
    }

    /** A file stem made of safe characters, unique among {@code taken}. */
    private static String name(String stem, Set<String> taken) {
        String safe = stem.replaceAll("[^A-Za-z0-9._-]+", "-");
        String name = safe;
        for (int i = 2; !taken.add(name); i++) name = safe + "-" + i;
        return name;
    }

    private static String cellLabel(ResultData r, boolean withThreads) {
        return withThreads ? r.workload() + " t=" + r.threads() : r.workload();
    }

    private static boolean isBytes(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("rss") || k.contains("bytes") || k.contains("heap");
    }

    private static double max(List<ResultData> results, ToDoubleFunction<ResultData> f) {
        return results.stream().mapToDouble(f).filter(Double::isFinite).max().orElse(0);
    }

    /** The unit a rate axis is drawn in. */
    private record RateUnit(String label, double divisor) {
        static RateUnit of(double max) {
            if (max >= 1e6) return new RateUnit("M ops/s", 1e6);
            if (max >= 1e3) return new RateUnit("k ops/s", 1e3);
            return new RateUnit("ops/s", 1);
        }
    }
}
