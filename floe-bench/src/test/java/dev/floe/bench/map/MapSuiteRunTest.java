package dev.floe.bench.map;

import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.SuiteRunJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tiny real run of the map suite through worker JVMs (4,000 keys, 50 ms runs, 20 ms warm-up,
 * one run, one thread, every implementation, ingest stopped after 0.3 s): every workload yields a
 * result per implementation, every ratio and every goal is there, and all of it reaches the JSON.
 */
class MapSuiteRunTest {

    @AfterEach
    void clearOverrides() {
        System.clearProperty(MapSizing.RANGE_PROPERTY);
        System.clearProperty(MapSizing.INGEST_SECONDS_PROPERTY);
        System.clearProperty(RollupIngest.TUPLES_PROPERTY);
    }

    @Test
    @SuppressWarnings("unchecked")
    void tinyRunReportsEveryResultRatioAndGoal() throws Exception {
        System.setProperty(MapSizing.RANGE_PROPERTY, "4000");
        System.setProperty(MapSizing.INGEST_SECONDS_PROPERTY, "0.3");
        System.setProperty(RollupIngest.TUPLES_PROPERTY, "5000");
        MapSuite suite = new MapSuite();
        List<String> impls = MapImpl.labels();
        Settings settings = new Settings(Mode.QUICK, 0.05, 0.02, 1, List.of(1), impls);
        Map<String, Object> s = SuiteRunJson.run(suite, settings);
        assertEquals("map", s.get("suite"));
        Map<String, Object> config = (Map<String, Object>) s.get("config");
        assertEquals(100, ((Number) config.get("key_bytes")).intValue());
        assertEquals(1000, ((Number) config.get("value_bytes")).intValue());
        assertEquals(4000, ((Number) config.get("range")).intValue());
        assertEquals(2000, ((Number) config.get("entries")).intValue());
        assertTrue(((Map<String, Object>) config.get("jvm_args")).get("cslm").toString().contains("-Xmx256m"));
        assertTrue(((Map<String, Object>) config.get("jvm_args")).get("floe-oak").toString().contains("-Xmx32m"));

        Set<String> results = new HashSet<>();
        for (Map<String, Object> r : (List<Map<String, Object>>) s.get("results")) {
            String impl = (String) r.get("impl");
            String workload = (String) r.get("workload");
            results.add(workload + "/" + impl + "/" + r.get("threads"));
            Map<String, Object> extra = (Map<String, Object>) r.get("extra");
            double ops = ((Number) ((Map<String, Object>) r.get("ops_per_s")).get("median")).doubleValue();
            assertTrue(ops > 0, "no progress in " + r);
            if (workload.equals("ingest")) {
                assertTrue(((Number) extra.get("ingested_bytes")).doubleValue() > 0, "ingested in " + r);
                continue;
            }
            if (workload.equals("rollup")) {
                assertTrue(((Number) extra.get("used_bytes")).doubleValue() > ((Number) extra.get("raw_bytes")).doubleValue(), "overhead in " + r);
                continue;
            }
            assertTrue(((Number) extra.get("entries")).longValue() > 0, "entries in " + r);
            assertTrue(((Number) extra.get("cell_warmup_slices")).intValue() >= 1, "the cell's own warm-up in " + r);
            Map<String, Object> memory = (Map<String, Object>) r.get("memory");
            assertTrue(((Number) memory.get("rss_bytes")).longValue() > 0, "rss in " + r);
            if (impl.equals("floe-oak")) {
                assertTrue(((Number) memory.get("offheap_live_bytes")).longValue() > 0, "off-heap in " + r);
                assertTrue(extra.containsKey("offheap_live_per_raw"), "footprint in " + r);
            }
            if (workload.equals("put-delete")) assertTrue(extra.containsKey("rss_flat_ratio"), "rss samples in " + r);
            if (workload.startsWith("scan")) assertTrue(extra.containsKey("entries_per_s"), "scanned in " + r);
        }
        // a row for every pair that has runs, none for the others: the leaking baseline runs
        // put-delete only, rollup compares floe-oak with cslm only
        Set<String> expected = new HashSet<>();
        for (String w : MapWorkload.labels()) {
            for (String impl : impls) {
                if (impl.equals("floe-oak-noreclaim") && !w.equals("put-delete")) continue;
                if (w.equals("rollup") && !impl.equals("floe-oak") && !impl.equals("cslm")) continue;
                expected.add(w + "/" + impl + "/1");
            }
        }
        assertEquals(expected, results);

        Set<String> ratios = new HashSet<>();
        for (Map<String, Object> q : (List<Map<String, Object>>) s.get("ratios")) {
            assertEquals("floe-oak", q.get("impl"));
            ratios.add(q.get("workload") + "/" + q.get("vs") + "/" + q.get("metric"));
        }
        Set<String> expectedRatios = new HashSet<>();
        for (String w : MapWorkload.labels()) {
            if (w.equals("rollup")) {
                expectedRatios.add("rollup/cslm/ops_per_s");
                expectedRatios.add("rollup/cslm/metadata_overhead");
                continue;
            }
            for (String vs : List.of("cslm", "cslm-offheap", "mapdb")) {
                expectedRatios.add(w + "/" + vs + "/ops_per_s");
                if (w.equals("ingest")) expectedRatios.add(w + "/" + vs + "/ingested_bytes");
            }
        }
        expectedRatios.add("put-delete/floe-oak-noreclaim/ops_per_s");
        assertEquals(expectedRatios, ratios);

        Set<String> targets = new HashSet<>();
        for (Map<String, Object> t : (List<Map<String, Object>>) s.get("targets")) {
            targets.add((String) t.get("target"));
            assertTrue(t.get("met") instanceof Boolean, "verdict in " + t);
        }
        assertEquals(Set.of("zc-get-vs-cslm", "put-vs-cslm", "mix95-vs-cslm", "compute-vs-cslm", "scan-desc-vs-cslm",
                "scan-asc-vs-cslm", "reclaim-overhead", "capacity-vs-cslm", "rollup-vs-cslm", "rollup-overhead-vs-cslm",
                "offheap-overhead", "rss-flat"), targets);
    }

    /** --heap / --offheap replace the split: cslm gets their sum as heap, the fill follows the off-heap budget. */
    @Test
    void budgetsFromTheCommandLineReplaceTheSplit() {
        long mib = 1L << 20;
        MapSizing quick = MapSizing.of(Mode.QUICK, 1);
        MapSizing z = MapSizing.of(Mode.QUICK, 1, new JvmConfig(null, 64 * mib, 64 * mib));
        assertEquals(64 * mib, z.splitHeap());
        assertEquals(64 * mib, z.offheapBudget());
        assertEquals(128 * mib, z.budgetBytes());
        assertEquals((int) (0.4 * 64 * mib / MapSizing.oakEntryBlockBytes(z.keyBytes(), z.valueBytes())), z.entries(),
                "fewer entries: as many as 40% of the off-heap budget holds");
        assertTrue(z.entries() < quick.entries());
        assertTrue(MapImpl.CSLM.jvmArgs(z).contains("-Xmx128m"));
        assertTrue(MapImpl.FLOE_OAK.jvmArgs(z).contains("-Xmx64m"));
        assertEquals(quick, MapSizing.of(Mode.QUICK, 1, JvmConfig.DEFAULT));
    }

    /** The JIT warm-up's contended map: few keys, a small budget of its own, the same entries. */
    @Test
    void theContendedMapIsSmallWithEntriesOfTheSameSize() {
        MapSizing z = MapSizing.of(Mode.QUICK, 1);
        MapSizing c = z.contended();
        assertEquals(MapSizing.CONTENDED_KEYS, c.range());
        assertEquals(MapSizing.CONTENDED_KEYS / 2, c.entries());
        assertTrue(c.scanLength() >= 1 && c.scanLength() <= MapSizing.CONTENDED_KEYS / 4);
        assertEquals(MapSizing.CONTENDED_OFFHEAP_BYTES, c.offheapBudget());
        assertEquals(z.keyBytes(), c.keyBytes());
        assertEquals(z.valueBytes(), c.valueBytes());
        System.setProperty(MapSizing.RANGE_PROPERTY, "100");
        assertEquals(z.withRange(100), MapSizing.of(Mode.QUICK, 1), "the range override is withRange");
    }
}
