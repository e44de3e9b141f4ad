package dev.floe.bench.lockfree;

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
 * A tiny real run of the lockfree suite through worker JVMs (quick sizes, 50 ms runs after 20 ms
 * of warm-up, one run, one and two threads, every implementation): every cell yields a result per
 * implementation with no incarnation mismatch, after the per-worker JIT warm-up (whose two-thread
 * rounds also run the contended structures); every ratio and every goal is there, and all of it
 * reaches the JSON.
 */
class LockfreeSuiteRunTest {

    @Test
    @SuppressWarnings("unchecked")
    void tinyRunReportsEveryResultRatioAndGoal() throws Exception {
        LockfreeSuite suite = new LockfreeSuite();
        List<String> impls = LockfreeSuite.IMPLS;
        Settings settings = new Settings(Mode.QUICK, 0.05, 0.02, 1, List.of(1, 2), impls);
        Map<String, Object> s = SuiteRunJson.run(suite, settings);
        assertEquals("lockfree", s.get("suite"));
        Map<String, Object> config = (Map<String, Object>) s.get("config");
        assertTrue(config.get("jit_warmup").toString().contains("32-key structure"), "the warm-up is described");

        Set<String> results = new HashSet<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) s.get("results")) {
            String workload = (String) r.get("workload");
            results.add(workload + "/" + r.get("impl") + "/" + r.get("threads"));
            Map<String, Object> extra = (Map<String, Object>) r.get("extra");
            double ops = ((Number) ((Map<String, Object>) r.get("ops_per_s")).get("median")).doubleValue();
            assertTrue(ops > 0, "no progress in " + r);
            if (workload.equals(LockfreeSuite.RELEASE)) {
                assertTrue(((Number) extra.get("rss_peak")).doubleValue() > 0, "RSS sampled in " + r);
                continue;
            }
            assertEquals(0, ((Number) extra.get("incarnation_mismatches")).longValue(), "stamps in " + r);
            assertTrue(((Number) extra.get("jit_warmup_rounds")).intValue() >= 1, "the worker's JIT warm-up in " + r);
            assertTrue(extra.containsKey("restarts") && extra.containsKey("warnings"), "OA counters in " + r);
        }
        Set<String> expected = new HashSet<>();
        for (LockfreeWorkload w : LockfreeWorkload.TIMED) {
            for (String impl : impls) {
                for (int t : List.of(1, 2)) expected.add(w.name() + "/" + impl + "/" + t);
            }
        }
        for (String impl : impls) expected.add(LockfreeSuite.RELEASE + "/" + impl + "/1");
        assertEquals(expected, results);

        Set<String> ratios = new HashSet<>();
        for (Map<String, Object> q : (List<Map<String, Object>>) s.get("ratios")) {
            ratios.add(q.get("workload") + "/" + q.get("threads") + "/" + q.get("impl") + "/" + q.get("vs") + "/"
                    + q.get("metric"));
        }
        Set<String> expectedRatios = new HashSet<>();
        for (String cell : expected) {
            if (!cell.contains("/oa-ver/")) continue;
            String[] p = cell.split("/");
            boolean release = p[0].equals(LockfreeSuite.RELEASE);
            for (String vs : List.of("oa-bit", "nr", "floe-ebr")) {
                expectedRatios.add(p[0] + "/" + p[2] + "/oa-ver/" + vs + "/ops_per_s");
                if (release) expectedRatios.add(p[0] + "/" + p[2] + "/oa-ver/" + vs + "/rss_bytes");
            }
            expectedRatios.add(p[0] + "/" + p[2] + "/oa-bit/nr/ops_per_s");
            if (release) expectedRatios.add(p[0] + "/" + p[2] + "/oa-bit/nr/rss_bytes");
        }
        assertEquals(expectedRatios, ratios);

        Set<String> targets = new HashSet<>();
        for (Map<String, Object> t : (List<Map<String, Object>>) s.get("targets")) {
            targets.add((String) t.get("target"));
            assertTrue(t.get("met") instanceof Boolean, "verdict in " + t);
        }
        assertEquals(Set.of("list-oa-ver-vs-oa-bit", "hash-oa-ver-vs-nr", "release-rss", "release-rss-growth"), targets);
    }
}
