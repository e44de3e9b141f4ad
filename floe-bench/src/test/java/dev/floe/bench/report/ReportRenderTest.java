package dev.floe.bench.report;

import dev.floe.bench.alloc.AllocSuite;
import dev.floe.bench.harness.Json;
import dev.floe.bench.harness.HostActivity;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Progress;
import dev.floe.bench.harness.Report;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.SuiteRunner;
import dev.floe.bench.harness.Units;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report folder of a tiny real run (the alloc suite, floe-alloc and malloc, 0.2 s runs):
 * {@code results.json} is exactly the contract's document, {@code index.html} is well-formed
 * (parsed by the JDK's XML parser) and self-contained, every chart it names is a PNG file that
 * decodes, and every result, goal and ratio of the JSON has its row.
 */
class ReportRenderTest {

    /** A command line with every character that needs escaping, as the page must show it. */
    private static final String COMMAND = "./floe bench alloc --impl 'a<b>&\"c\"'";

    private static Report report;

    @TempDir
    Path dir;

    @BeforeAll
    static void tinyRun() throws Exception {
        Settings settings = new Settings(Mode.QUICK, 0.2, 0.1, 1, List.of(1), List.of("floe-alloc", "malloc"));
        SuiteReport alloc = new SuiteRunner(Progress.silent()).run(new AllocSuite(), settings);
        report = new Report("test", "0123456789abcdef0123456789abcdef01234567", "2025-01-01T00:00:00Z",
                Machine.current(), List.of(alloc), new HostActivity(512.4, 0.031, 0.204));
    }

    @Test
    void theFolderHoldsTheContractJsonAndAWellFormedPageThatShowsEveryResult() throws Exception {
        ReportFolder.Written w = ReportFolder.write(report, COMMAND, s -> "allocators <&> \"quoted\"", dir);

        assertEquals(Json.pretty(report.toJson()), Files.readString(w.results(), StandardCharsets.UTF_8),
                "results.json is the BENCHMARKS.md document, unchanged");
        RunData run = RunData.read(w.results());
        Document page = parse(w.page().file());

        List<String> images = images(page, dir);
        assertTrue(images.contains("charts/alloc-throughput.png"), images.toString());
        assertTrue(images.contains("charts/alloc-memory.png"), images.toString());
        assertEquals(Set.copyOf(images), Set.copyOf(w.page().charts().stream().map(Charts.ChartFile::file).toList()));
        assertTrue(w.page().chartFailures().isEmpty(), w.page().chartFailures().toString());

        RunData.SuiteData suite = run.suites().getFirst();
        List<Element> rows = elements(page, "tr").stream().filter(e -> e.getAttribute("class").equals("result")).toList();
        assertEquals(suite.results().size(), rows.size(), "one table row per result");
        for (RunData.ResultData r : suite.results()) {
            Element row = rows.stream().filter(e -> e.getAttribute("data-workload").equals(r.workload())
                            && e.getAttribute("data-impl").equals(r.impl())
                            && e.getAttribute("data-threads").equals(String.valueOf(r.threads())))
                    .findFirst().orElseThrow(() -> new AssertionError("no row for " + r.key()));
            List<String> cells = cells(row);
            assertEquals(List.of(r.workload(), String.valueOf(r.threads()), r.impl(),
                    Units.rate(r.opsPerSecond().median()), Units.rate(r.opsPerSecond().min()),
                    Units.rate(r.opsPerSecond().max())), cells.subList(0, 6), "median, min, max of " + r.key());
        }

        List<Element> targets = elements(page, "tr").stream().filter(e -> e.getAttribute("class").equals("target")).toList();
        assertEquals(suite.targets().size(), targets.size(), "one row per goal");
        for (int i = 0; i < targets.size(); i++) {
            assertEquals(suite.targets().get(i).met() ? "\u2714 met" : "\u2718 missed", cells(targets.get(i)).getFirst());
        }
        String text = page.getDocumentElement().getTextContent();
        for (RunData.RatioData q : suite.ratios()) assertTrue(text.contains(Units.ratio(q.medianRatio())), q.toString());

        assertEquals("git checkout 0123456789abcdef0123456789abcdef01234567\n" + COMMAND,
                elements(page, "pre").getFirst().getTextContent(), "the reproduce command, unescaped by the parser");
        assertTrue(text.contains("allocators <&> \"quoted\""), "suite description escaped and shown");
        Machine m = report.machine();
        assertTrue(text.contains(m.jdk()) && text.contains(m.os()), "machine shown");
        assertTrue(text.contains("512 s; other processes 3% of CPU time, steal 20% (a busy host"), "the host's activity shown");
    }

    @Test
    void thePageLoadsNothingFromElsewhere() throws Exception {
        Path page = ReportFolder.write(report, COMMAND, s -> null, dir).page().file();
        Document doc = parse(page);
        assertTrue(elements(doc, "script").isEmpty(), "no script");
        assertTrue(elements(doc, "link").isEmpty(), "no external style sheet");
        for (Element e : elements(doc, "*")) {
            for (String attr : List.of("src", "href")) {
                String v = e.getAttribute(attr);
                assertFalse(v.contains("//") || v.startsWith("data:") && !v.startsWith("data:image/png"),
                        "<" + e.getTagName() + " " + attr + "=" + v + ">");
            }
        }
        String css = elements(doc, "style").getFirst().getTextContent();
        assertFalse(css.contains("url(") || css.contains("@import"), "CSS loads nothing");
    }

    @Test
    void aTimeSeriesInExtraGetsALineChart() throws Exception {
        Map<String, Object> doc = Json.parseObject(Json.pretty(report.toJson()));
        List<Object> series = new ArrayList<>();
        for (int i = 0; i < 120; i++) series.add((100L + i % 17) << 20);
        Map<String, Object> first = firstResult(doc);
        @SuppressWarnings("unchecked")
        Map<String, Object> extra = new LinkedHashMap<>((Map<String, Object>) first.get("extra"));
        extra.put("rss_series", series);
        first.put("extra", extra);

        HtmlReport.Page page = HtmlReport.write(RunData.of(doc), COMMAND, s -> null, dir);

        String expected = "charts/alloc-series-" + first.get("workload") + "-t1-rss_series.png";
        List<String> images = images(parse(page.file()), dir);
        assertTrue(images.contains(expected), images.toString());
        assertTrue(Files.readString(page.file()).contains("rss_series: 120 samples"), "the table names the series");
    }

    @Test
    void escapingKeepsTheMarkupWellFormedForAnyText() {
        assertEquals("a&lt;b&gt;&amp;&quot;&#39;\uFFFD\uFFFDz\uD83D\uDE00",
                HtmlReport.esc("a<b>&\"'\u0001\uD800z\uD83D\uDE00"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> firstResult(Map<String, Object> doc) {
        Map<String, Object> suite = ((List<Map<String, Object>>) doc.get("suites")).getFirst();
        return ((List<Map<String, Object>>) suite.get("results")).getFirst();
    }

    /** Parses the page as XML: fails on any unclosed element, bad attribute or undefined entity. */
    static Document parse(Path page) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newDocumentBuilder().parse(page.toFile());
    }

    /** The {@code src} of every image, each checked to be a PNG file beside the page that decodes. */
    static List<String> images(Document page, Path dir) throws IOException {
        List<String> srcs = new ArrayList<>();
        for (Element img : elements(page, "img")) {
            String src = img.getAttribute("src");
            assertFalse(img.getAttribute("alt").isBlank(), "alt text for " + src);
            Path file = dir.resolve(src);
            assertTrue(Files.isRegularFile(file), "missing chart " + file);
            byte[] head = Arrays.copyOf(Files.readAllBytes(file), 8);
            assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, head, "PNG signature of " + src);
            var image = ImageIO.read(file.toFile());
            assertNotNull(image, "decodes: " + src);
            assertTrue(image.getWidth() > 100 && image.getHeight() > 100, src);
            srcs.add(src);
        }
        assertEquals(srcs.size(), new HashSet<>(srcs).size(), "chart names are unique");
        return srcs;
    }

    static List<Element> elements(Document doc, String name) {
        NodeList nodes = doc.getElementsByTagNameNS("*", name);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
        return out;
    }

    private static List<String> cells(Element row) {
        List<String> out = new ArrayList<>();
        for (Node n = row.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getLocalName().equals("td")) out.add(e.getTextContent());
        }
        return out;
    }
}
