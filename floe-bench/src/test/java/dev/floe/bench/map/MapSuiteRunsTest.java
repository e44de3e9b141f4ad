package dev.floe.bench.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Settings;
import org.junit.jupiter.api.Test;

/** How many runs each map cell gets: one ingest run in quick mode unless --runs is given, the settings' count elsewhere. */
class MapSuiteRunsTest {
    private final MapSuite suite = new MapSuite();
    private final Cell ingest = new Cell("ingest", 1, Isolation.FRESH_JVM);
    private final Cell rollup = new Cell("rollup", 1, Isolation.FRESH_JVM);
    private final Cell zcGet = new Cell("zc-get", 2, Isolation.SHARED_WORKER);

    @Test
    void quickModeRunsIngestOnceAndEveryOtherCellTheSettingsCount() {
        Settings quick = suite.defaults(Mode.QUICK);
        assertEquals(3, quick.runs());
        assertEquals(1, suite.runs(ingest, quick));
        assertEquals(3, suite.runs(rollup, quick));
        assertEquals(3, suite.runs(zcGet, quick));
        assertEquals(1, suite.config(quick).get("ingest_runs"));
    }

    /** {@code --runs N} is a median of N runs for every cell: the one-run default is the suite's, not the user's. */
    @Test
    void anExplicitRunsCountReachesIngestInQuickMode() {
        Settings s = Settings.resolve(suite, new BenchOptions(Mode.QUICK, null, null, null, null, 5));
        assertEquals(5, s.runs());
        assertEquals(5, suite.runs(ingest, s));
        assertEquals(5, suite.runs(zcGet, s));
        assertEquals(5, suite.config(s).get("ingest_runs"));
        Settings defaults = Settings.resolve(suite, new BenchOptions(Mode.QUICK, null, null, null, null, null));
        assertEquals(1, suite.runs(ingest, defaults));
    }

    @Test
    void fullModeRunsIngestAsOftenAsEveryOtherCell() {
        Settings full = suite.defaults(Mode.FULL);
        assertEquals(full.runs(), suite.runs(ingest, full));
        assertEquals(full.runs(), suite.runs(zcGet, full));
        assertEquals(full.runs(), suite.config(full).get("ingest_runs"));
    }
}
