package dev.floe.bench.harness;

import dev.floe.bench.report.RunData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The written report has exactly the shape BENCHMARKS.md fixes (plus each suite's targets). */
class ReportJsonTest {

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void writtenReportHasTheKeysOfTheContract() throws Exception {
        Cell cell = new Cell("same-thread", 1, Isolation.SHARED_WORKER);
        Sample s = new Sample(Map.of("ops_per_s", 1e6), new MemorySnapshot(100, 200, 300, 400), Map.of("x", 1.0));
        Result result = Result.of(cell, "floe-alloc", List.of(s, s, s));
        Ratio ratio = new Ratio("same-thread", 1, "floe-alloc", "malloc", "ops_per_s", 1.23456);
        TargetCheck target = new TargetCheck("ops-vs-malloc", "floe >= 1.5x malloc", "same-thread", 1, "floe-alloc",
                "malloc", "ops_per_s_ratio", 1.23456, ">=", 1.5);
        SuiteReport suite = new SuiteReport("alloc", Map.of("duration_s", 1, "runs", 3), List.of(result),
                List.of(ratio), List.of(target));
        Report report = new Report("0.1.0", "abc", "2025-01-01T00:00:00Z", new Machine(2, "25", "Linux", 1L << 30),
                List.of(suite), new HostActivity(512.44, 0.0314, 0.2));

        Path file = dir.resolve("sub/results.json");
        report.write(file);
        assertFalse(Files.exists(dir.resolve("sub/results.json.tmp")), "the temporary file is renamed away");

        Map<String, Object> root = Json.parseObject(Files.readString(file));
        assertEquals(Set.of("floe_version", "git_commit", "started", "machine", "suites", "host"), root.keySet());
        assertEquals(Map.of("wall_seconds", 512.4, "other_cpu_share", 0.031, "steal_share", 0.2), root.get("host"));
        assertEquals(new HostActivity(512.4, 0.031, 0.2), RunData.of(root).host(),
                "the report reads the host object back");
        assertEquals(Set.of("cores", "jdk", "os", "memory_bytes"), ((Map<String, Object>) root.get("machine")).keySet());
        Map<String, Object> s0 = ((List<Map<String, Object>>) root.get("suites")).getFirst();
        assertEquals(Set.of("suite", "config", "results", "ratios", "targets"), s0.keySet());

        Map<String, Object> r0 = ((List<Map<String, Object>>) s0.get("results")).getFirst();
        assertEquals(Set.of("workload", "impl", "threads", "ops_per_s", "memory", "extra"), r0.keySet());
        assertEquals(Map.of("median", 1_000_000L, "min", 1_000_000L, "max", 1_000_000L), r0.get("ops_per_s"));
        assertEquals(Map.of("rss_bytes", 100L, "heap_used_bytes", 200L, "offheap_committed_bytes", 300L,
                "offheap_live_bytes", 400L), r0.get("memory"));

        Map<String, Object> q0 = ((List<Map<String, Object>>) s0.get("ratios")).getFirst();
        assertEquals(Set.of("workload", "threads", "impl", "vs", "metric", "median_ratio"), q0.keySet());
        assertEquals(1.2346, q0.get("median_ratio"));

        Map<String, Object> t0 = ((List<Map<String, Object>>) s0.get("targets")).getFirst();
        assertEquals(false, t0.get("met"));
        assertTrue(t0.keySet().containsAll(Set.of("target", "observed", "comparison", "threshold")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void seriesElementsOfExtraBecomeOneArrayOfPerIndexMedians() {
        Cell cell = new Cell("lru-churn", 1, Isolation.SHARED_WORKER);
        Map<String, Double> a = Map.of("n", 1.0, Result.seriesKey("rss_series", 0), 10.0,
                Result.seriesKey("rss_series", 1), 20.0, Result.seriesKey("rss_series", 10), 30.0);
        Map<String, Double> b = Map.of("n", 3.0, Result.seriesKey("rss_series", 0), 12.0,
                Result.seriesKey("rss_series", 1), 22.0, Result.seriesKey("rss_series", 10), 32.0);
        Sample sa = new Sample(Map.of("ops_per_s", 1.0), new MemorySnapshot(1, 1, 1, 1), a);
        Sample sb = new Sample(Map.of("ops_per_s", 1.0), new MemorySnapshot(1, 1, 1, 1), b);
        Map<String, Object> extra = (Map<String, Object>) Result.of(cell, "x", List.of(sa, sb, sb)).toJson().get("extra");
        assertEquals(3.0, extra.get("n"));
        assertEquals(List.of(12.0, 22.0, 32.0), extra.get("rss_series"), "index order 0, 1, 10; medians");
        assertFalse(extra.keySet().stream().anyMatch(k -> k.contains("[")));
    }
}
