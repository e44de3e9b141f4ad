package dev.floe.bench.somar;

import dev.floe.bench.harness.Json;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Progress;
import dev.floe.bench.harness.Report;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.SuiteRunner;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tiny real run of the somar suite through worker JVMs (0.2 s runs, 0.1 s warm-up, one run,
 * one thread, floe-nova and gc-g1, quick sizes): every workload yields a result per
 * implementation with its memory figures, every ratio and the goal are there, and all of it
 * reaches the JSON.
 */
class SomarSuiteRunTest {

    @Test
    @SuppressWarnings("unchecked")
    void tinyRunReportsEveryResultRatioAndGoal() throws Exception {
        SomarSuite suite = new SomarSuite();
        Settings settings = new Settings(Mode.QUICK, 0.2, 0.1, 1, List.of(1), List.of("floe-nova", "gc-g1"));
        SuiteReport report = new SuiteRunner(Progress.silent()).run(suite, settings);
        Report doc = new Report("test", "none", "2025-01-01T00:00:00Z", Machine.current(), List.of(report));

        Map<String, Object> root = Json.parseObject(Json.pretty(doc.toJson()));
        Map<String, Object> s = ((List<Map<String, Object>>) root.get("suites")).getFirst();
        assertEquals("somar", s.get("suite"));
        Map<String, Object> config = (Map<String, Object>) s.get("config");
        assertEquals(2048, ((Number) config.get("ll_entries")).intValue());
        assertEquals(512, ((Number) config.get("ll_key_bytes")).intValue());
        assertTrue(((Map<String, Object>) config.get("jvm_args")).get("gc-g1").toString().contains("-XX:+UseG1GC"));

        Set<String> results = new HashSet<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) s.get("results")) {
            results.add(r.get("workload") + "/" + r.get("impl") + "/" + r.get("threads"));
            Map<String, Object> ops = (Map<String, Object>) r.get("ops_per_s");
            assertTrue(((Number) ops.get("median")).doubleValue() > 0, "no progress in " + r);
            Map<String, Object> memory = (Map<String, Object>) r.get("memory");
            assertTrue(((Number) memory.get("heap_used_bytes")).longValue() > 0, "heap used in " + r);
            long committed = ((Number) memory.get("offheap_committed_bytes")).longValue();
            long live = ((Number) memory.get("offheap_live_bytes")).longValue();
            if (r.get("impl").equals("floe-nova")) {
                assertTrue(committed > 0 && live > 0 && live <= committed, "off-heap figures in " + r);
            } else {
                assertEquals(0, committed, "gc-g1 has no off-heap memory");
            }
            Map<String, Object> extra = (Map<String, Object>) r.get("extra");
            assertTrue(extra.keySet().containsAll(Set.of("entries", "gc_ms", "gc_count", "heap_after_gc_bytes",
                    "alloc_bytes_per_op")), "extras in " + r);
            assertTrue(((Number) extra.get("entries")).longValue() > 0, "entries in " + r);
        }
        Set<String> expected = new HashSet<>();
        for (String w : Workload.labels()) {
            for (String impl : List.of("floe-nova", "gc-g1")) expected.add(w + "/" + impl + "/1");
        }
        assertEquals(expected, results);

        Set<String> ratios = new HashSet<>();
        for (Map<String, Object> q : (List<Map<String, Object>>) s.get("ratios")) {
            assertEquals("floe-nova", q.get("impl"));
            assertEquals("gc-g1", q.get("vs"));
            assertEquals("ops_per_s", q.get("metric"));
            ratios.add((String) q.get("workload"));
        }
        assertEquals(new HashSet<>(Workload.labels()), ratios);

        List<Map<String, Object>> targets = (List<Map<String, Object>>) s.get("targets");
        assertEquals(1, targets.size(), "the gc-g1 goal on ll-read-write (the others need their baselines)");
        assertEquals("ll-read-write", targets.getFirst().get("workload"));
        assertEquals(2.0, ((Number) targets.getFirst().get("threshold")).doubleValue());
    }
}
