package dev.floe.bench.manual;

import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.SuiteRunJson;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real quick run of the manual suite through fresh worker JVMs (one run, one thread): every
 * payload size yields a result per implementation with the three metrics, the ratios use the
 * metric names of BENCHMARKS.md, no request read a wrong payload, and the goals are reported.
 */
class ManualSuiteRunTest {

    @Test
    @SuppressWarnings("unchecked")
    void quickRunReportsResultsRatiosAndTargets() throws Exception {
        ManualSuite suite = new ManualSuite();
        Settings settings = new Settings(Mode.QUICK, 1, 0, 1, List.of(1), List.of("manual", "gc-g1"));
        Map<String, Object> s = SuiteRunJson.run(suite, settings);
        assertEquals("manual", s.get("suite"));

        Set<String> results = new HashSet<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) s.get("results")) {
            results.add(r.get("workload") + "/" + r.get("impl"));
            assertTrue(((Number) ((Map<String, Object>) r.get("ops_per_s")).get("median")).doubleValue() > 0);
            Map<String, Object> extra = (Map<String, Object>) r.get("extra");
            assertEquals(0.0, ((Number) extra.get("payload_mismatches")).doubleValue(), "a request read a wrong payload: " + r);
            assertTrue(((Number) extra.get("peak_rss_bytes")).doubleValue() > 0, "peak RSS measured: " + r);
            assertTrue(extra.containsKey("gc_pause_ms") && extra.containsKey("gc_count") && extra.containsKey("time_s"));
        }
        assertEquals(Set.of("cache-256b/manual", "cache-256b/gc-g1", "cache-2k/manual", "cache-2k/gc-g1",
                "cache-4k/manual", "cache-4k/gc-g1"), results);

        Set<String> ratios = new HashSet<>();
        for (Map<String, Object> q : (List<Map<String, Object>>) s.get("ratios")) {
            assertEquals("manual", q.get("impl"));
            assertEquals("gc-g1", q.get("vs"));
            ratios.add(q.get("workload") + "/" + q.get("metric"));
        }
        Set<String> expected = new HashSet<>();
        for (String w : List.of("cache-256b", "cache-2k", "cache-4k")) {
            for (String m : List.of("ops_per_s", "peak_rss_bytes", "gc_pause_ms")) expected.add(w + "/" + m);
        }
        assertEquals(expected, ratios);
        List<Map<String, Object>> targets = (List<Map<String, Object>>) s.get("targets");
        assertEquals(2 + 3 + 3, targets.size(), "peak RSS on 2k and 4k; GC pause and time on all three");
    }
}
