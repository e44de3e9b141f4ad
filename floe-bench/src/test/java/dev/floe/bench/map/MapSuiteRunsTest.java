package dev.floe.bench.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Settings;
import org.junit.jupiter.api.Test;

/** How many runs each map cell gets: one ingest run in quick mode, the settings' count elsewhere. */
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

    @Test
    void fullModeRunsIngestAsOftenAsEveryOtherCell() {
        Settings full = suite.defaults(Mode.FULL);
        assertEquals(full.runs(), suite.runs(ingest, full));
        assertEquals(full.runs(), suite.runs(zcGet, full));
        assertEquals(full.runs(), suite.config(full).get("ingest_runs"));
    }
}
