package dev.floe.bench.alloc;

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
 * A tiny real run of the alloc suite through worker JVMs (0.2 s runs, 0.1 s warm-up, one run,
 * one thread, floe-alloc and malloc): every workload yields a result per implementation, every
 * ratio is there, and all of it reaches the JSON.
 */
class AllocSuiteRunTest {

    @Test
    @SuppressWarnings("unchecked")
    void tinyRunReportsEveryResultAndRatio() throws Exception {
        AllocSuite suite = new AllocSuite();
        Settings settings = new Settings(Mode.QUICK, 0.2, 0.1, 1, List.of(1), List.of("floe-alloc", "malloc"));
        Map<String, Object> s = SuiteRunJson.run(suite, settings);
        assertEquals("alloc", s.get("suite"));

        Set<String> results = new HashSet<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) s.get("results")) {
            results.add(r.get("workload") + "/" + r.get("impl") + "/" + r.get("threads"));
            Map<String, Object> ops = (Map<String, Object>) r.get("ops_per_s");
            assertTrue(((Number) ops.get("median")).doubleValue() > 0, "no progress in " + r);
        }
        Set<String> expected = new HashSet<>();
        for (String w : List.of(AllocSuite.SAME_THREAD, AllocSuite.CROSS_THREAD, AllocSuite.MIXED_SIZES, AllocSuite.RELEASE)) {
            for (String impl : List.of("floe-alloc", "malloc")) expected.add(w + "/" + impl + "/1");
        }
        assertEquals(expected, results);

        Set<String> ratios = new HashSet<>();
        for (Map<String, Object> q : (List<Map<String, Object>>) s.get("ratios")) {
            assertEquals("floe-alloc", q.get("impl"));
            assertEquals("malloc", q.get("vs"));
            ratios.add(q.get("workload") + "/" + q.get("metric"));
        }
        assertEquals(Set.of("same-thread/ops_per_s", "cross-thread/ops_per_s", "mixed-sizes/ops_per_s",
                "release/ops_per_s", "release/rss_bytes"), ratios);

        Map<String, Object> release = ((List<Map<String, Object>>) s.get("results")).stream()
                .filter(r -> r.get("workload").equals(AllocSuite.RELEASE)).findFirst().orElseThrow();
        assertTrue(((Map<String, Object>) release.get("extra")).keySet()
                .containsAll(Set.of("rss_before", "rss_peak", "rss_after", "ops_per_s")));

        List<Map<String, Object>> targets = (List<Map<String, Object>>) s.get("targets");
        assertEquals(3, targets.size(), "two malloc ratio goals and the release goal");
    }
}
