package dev.floe.bench.map;

import dev.floe.bench.harness.TimedRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every implementation behind {@link MapUnderTest} has the same semantics: inserts, lookups,
 * the in-place increment, removal, and scans in both directions from an inclusive start key;
 * and survives two threads of each mix.
 */
class MapStoresTest {

    private static final long MIB = 1L << 20;
    /** Small sizes: 2,000 keys, 1,000 filled, 100-entry scans, generous budgets. */
    static final MapSizing TINY = new MapSizing(100, 1000, 1_000, 2_000, 100, 256 * MIB, 32 * MIB, 224 * MIB,
            256 * MIB, 1, 0.0001);

    /** Entries larger than a Nova slice (--key-bytes / --value-bytes up to 1 MiB). */
    static final MapSizing LARGE = new MapSizing(20_000, 100_000, 100, 200, 20, 256 * MIB, 32 * MIB, 224 * MIB,
            256 * MIB, 1, 0.00001);

    @ParameterizedTest
    @EnumSource(MapImpl.class)
    void largeEntriesWorkOrAreRefusedClearly(MapImpl impl) {
        if (impl == MapImpl.CSLM_OFFHEAP) { // one Nova slice per value, by design
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> impl.open(LARGE));
            assertTrue(e.getMessage().contains("--value-bytes"), e.getMessage());
            return;
        }
        try (MapUnderTest map = impl.open(LARGE)) {
            Probe p = new Probe(LARGE.keyBytes(), LARGE.valueBytes());
            for (int id = 0; id < 40; id += 2) assertTrue(map.putIfAbsent(p.key(id)), "insert " + id);
            assertEquals(20, map.size());
            assertTrue(map.zcGet(p.key(10)) && map.getCopy(p.key(10)));
            assertFalse(map.zcGet(p.key(11)), "absent");
            map.put(p.key(20));
            long stamp = (long) BenchKeys.NATIVE_LONG.get(p.value, 0);
            assertEquals(stamp, word(map, p, 20));
            map.compute(p.key(20));
            assertEquals(stamp + 1, word(map, p, 20));
            assertEquals(15, map.scan(p.key(10), 1000, false));
            assertEquals(6, map.scan(p.key(10), 1000, true));
            assertTrue(map.remove(p.key(20)));
            assertEquals(19, map.size());
        }
    }

    @ParameterizedTest
    @EnumSource(MapImpl.class)
    void operationsHaveTheSameMeaningEverywhere(MapImpl impl) {
        try (MapUnderTest map = impl.open(TINY)) {
            Probe p = new Probe(TINY.keyBytes(), TINY.valueBytes());
            for (int id = 0; id < 200; id += 2) assertTrue(map.putIfAbsent(p.key(id)), "insert " + id);
            assertEquals(100, map.size());
            assertFalse(map.putIfAbsent(p.key(10)), "present: no insert");
            assertTrue(map.zcGet(p.key(10)) && map.getCopy(p.key(10)));
            assertFalse(map.zcGet(p.key(11)) || map.getCopy(p.key(11)), "absent");

            // put overwrites with the stamped template; reads see its first word
            map.put(p.key(20));
            long stamp = (long) BenchKeys.NATIVE_LONG.get(p.value, 0);
            assertEquals(stamp, word(map, p, 20));
            assertEquals(stamp, copyWord(map, p, 20));
            assertEquals(100, map.size(), "put of a present key inserts nothing");

            // compute: +1 in place on a present key, insert on an absent one
            map.compute(p.key(20));
            map.compute(p.key(20));
            assertEquals(stamp + 2, word(map, p, 20));
            map.compute(p.key(21));
            assertEquals(101, map.size());
            long w21 = word(map, p, 21);
            map.compute(p.key(21));
            assertEquals(w21 + 1, word(map, p, 21));

            assertTrue(map.remove(p.key(21)));
            assertFalse(map.remove(p.key(21)));
            assertFalse(map.zcGet(p.key(21)));
            assertEquals(100, map.size());

            // scans: from an inclusive start, up to n entries, in either direction
            assertEquals(75, map.scan(p.key(50), 1000, false), "ascending from 50: 50, 52, ..., 198");
            assertEquals(26, map.scan(p.key(50), 1000, true), "descending from 50: 50, 48, ..., 0");
            assertEquals(74, map.scan(p.key(51), 1000, false));
            assertEquals(26, map.scan(p.key(51), 1000, true));
            assertEquals(10, map.scan(p.key(0), 10, false));
            assertEquals(10, map.scan(p.key(199), 10, true));
            assertEquals(1, map.scan(p.key(0), 1000, true));
            assertEquals(0, map.scan(p.key(500), 1000, false));

            if (impl == MapImpl.FLOE_OAK || impl == MapImpl.CSLM_OFFHEAP || impl == MapImpl.FLOE_OAK_NORECLAIM) {
                assertTrue(map.offheapLiveBytes() >= 100 * TINY.valueBytes(), "values live off-heap");
                assertTrue(map.offheapCommittedBytes() >= map.offheapLiveBytes());
            }
            if (impl == MapImpl.FLOE_OAK) {
                double perRaw = map.extra().get("offheap_live_per_raw");
                assertTrue(perRaw >= 1 && perRaw < 1.5, "Oak's off-heap bytes per raw byte: " + perRaw);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(MapImpl.class)
    void fillPutsHalfTheRange(MapImpl impl) {
        try (MapUnderTest map = impl.open(TINY)) {
            MapSuite.fill(map, TINY, 42);
            assertEquals(TINY.entries(), map.size());
        }
    }

    @ParameterizedTest
    @EnumSource(MapImpl.class)
    void twoThreadsOfEveryTimedWorkload(MapImpl impl) throws Exception {
        try (MapUnderTest map = impl.open(TINY)) {
            MapSuite.fill(map, TINY, 42);
            for (MapWorkload w : MapWorkload.values()) {
                if (w == MapWorkload.INGEST || w == MapWorkload.ROLLUP) continue;
                List<OpTask> tasks = new ArrayList<>();
                for (int t = 0; t < 2; t++) tasks.add(new OpTask(map, w, TINY, 1000L * w.ordinal() + t));
                TimedRun.Outcome o = Watchdog.run(() -> TimedRun.run(tasks, 0.05, () -> null), 60, impl + " " + w);
                assertTrue(o.ops() > 0, w + ": no progress");
                assertTrue(map.size() <= TINY.range(), w + ": more entries than keys");
                if (w.scan()) assertTrue(tasks.get(0).scannedEntries() > 0, w + ": scanned nothing");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = MapImpl.class, names = {"FLOE_OAK", "CSLM", "MAPDB"})
    void ingestStopsAtItsLimitAndCountsWhatFitted(MapImpl impl) {
        var s = Ingest.run(impl, TINY, 10, 5_000);
        assertEquals(5_000, s.extra().get("ingested_entries"));
        assertEquals(5_000.0 * 1100, s.metric(Ingest.INGESTED_BYTES.name()));
        assertTrue(s.metric("ops_per_s") > 0);
        var t = Ingest.run(impl, TINY, 0.001, Long.MAX_VALUE);
        assertEquals(1.0, t.extra().get("time_limit"), "a time limit stops it");
    }

    private static long word(MapUnderTest map, Probe p, long id) {
        long before = p.sink;
        assertTrue(map.zcGet(p.key(id)), "present " + id);
        return p.sink - before;
    }

    private static long copyWord(MapUnderTest map, Probe p, long id) {
        long before = p.sink;
        assertTrue(map.getCopy(p.key(id)), "present " + id);
        return p.sink - before;
    }
}
