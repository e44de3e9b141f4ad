package dev.floe.bench.somar;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Progress;
import dev.floe.bench.harness.Result;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.SuiteRunJson;
import dev.floe.bench.harness.SuiteRunner;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        Map<String, Object> s = SuiteRunJson.run(suite, settings);
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

    /**
     * {@code --gc zgc,g1 --heap 256m --offheap 512m} on one workload: one worker per variant, the
     * floe-nova worker of the ZGC configuration really runs ZGC (only ZGC reports cycle times),
     * ratios pair variants of the same configuration, and the budgets reach the sizes and the
     * worker options (gc-* get heap + off-heap). Goals name plain implementations: none here.
     */
    @Test
    @SuppressWarnings("unchecked")
    void collectorsAndBudgetsFromTheCommandLineReachTheWorkers() throws Exception {
        String workloads = System.getProperty(SomarSuite.WORKLOADS_PROPERTY);
        System.setProperty(SomarSuite.WORKLOADS_PROPERTY, "ll-read-write");
        try {
            SomarSuite suite = new SomarSuite();
            long mib = 1L << 20;
            Settings settings = Settings.resolve(suite, new BenchOptions(Mode.QUICK, List.of("floe-nova", "gc-g1", "gc-zgc"),
                    List.of(1), 0.1, 0.05, 1, List.of(Collector.ZGC, Collector.G1), List.of(256 * mib), List.of(512 * mib)));
            SuiteReport report = new SuiteRunner(Progress.silent()).run(suite, settings);

            Map<String, Result> byLabel = new HashMap<>();
            report.results().forEach(r -> byLabel.put(r.impl(), r));
            assertEquals(Set.of("floe-nova@zgc", "gc-zgc", "floe-nova@g1", "gc-g1"), byLabel.keySet());
            assertTrue(byLabel.get("floe-nova@zgc").extra().containsKey("gc_cycles_ms"), "ran ZGC");
            assertFalse(byLabel.get("floe-nova@g1").extra().containsKey("gc_cycles_ms"), "ran G1");
            assertTrue(byLabel.get("gc-zgc").extra().containsKey("gc_cycles_ms"), "gc-zgc keeps ZGC");

            Set<String> pairs = new HashSet<>();
            report.ratios().forEach(q -> pairs.add(q.impl() + " vs " + q.vs()));
            assertEquals(Set.of("floe-nova@zgc vs gc-zgc", "floe-nova@g1 vs gc-g1"), pairs);
            assertTrue(report.targets().isEmpty(), "goals are for the plain implementations");

            Map<String, Object> config = report.config();
            assertEquals(512 * mib, ((Number) config.get("offheap_impl_offheap_budget_bytes")).longValue());
            assertEquals(768 * mib, ((Number) config.get("gc_heap_bytes")).longValue());
            Map<String, Object> args = (Map<String, Object>) config.get("jvm_args");
            assertTrue(args.get("floe-nova@zgc").toString().contains("-XX:+UseZGC -Xms256m -Xmx256m"), args.toString());
            assertTrue(args.get("gc-g1").toString().contains("-XX:+UseG1GC -Xms768m -Xmx768m"), args.toString());
            assertEquals(Map.of("gc", "zgc", "heap_bytes", 256 * mib, "offheap_bytes", 512 * mib),
                    ((Map<String, Object>) config.get("jvm_configs")).get("gc-zgc"));
        } finally {
            if (workloads == null) System.clearProperty(SomarSuite.WORKLOADS_PROPERTY);
            else System.setProperty(SomarSuite.WORKLOADS_PROPERTY, workloads);
        }
    }

    /** --heap / --offheap replace the split; the skiplist fill shrinks to what the off-heap budget holds. */
    @Test
    void budgetsFromTheCommandLineReplaceTheSplit() {
        long mib = 1L << 20;
        Sizing quick = Sizing.of(Mode.QUICK, 1);
        Sizing big = Sizing.of(Mode.QUICK, 1, new JvmConfig(null, 512 * mib, 4096 * mib));
        assertEquals(512 * mib, big.splitHeap());
        assertEquals(4096 * mib, big.offheapBudget());
        assertEquals(4608 * mib, big.heapBytes(), "gc-* get the same RAM as heap");
        assertEquals(quick.slEntries(), big.slEntries(), "the quick fill fits: unchanged");
        Sizing small = Sizing.of(Mode.QUICK, 1, new JvmConfig(null, 0, 128 * mib));
        assertEquals(quick.splitHeap(), small.splitHeap(), "heap not given: the suite's split");
        assertEquals((int) (0.85 * 128 * mib / Sizing.valueBlockBytes()), small.slEntries());
        assertEquals(2 * small.slEntries(), small.slRange());
        assertEquals(quick, Sizing.of(Mode.QUICK, 1, JvmConfig.DEFAULT));
    }
}
