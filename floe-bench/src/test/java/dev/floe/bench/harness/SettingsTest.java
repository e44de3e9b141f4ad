package dev.floe.bench.harness;

import dev.floe.bench.alloc.AllocSuite;
import dev.floe.bench.defrag.DefragSuite;
import dev.floe.bench.manual.ManualSuite;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SettingsTest {

    private final Suite alloc = new AllocSuite();

    @Test
    void givenOptionsOverrideTheModeDefaults() {
        Settings s = Settings.resolve(alloc, new BenchOptions(Mode.QUICK, List.of("malloc", "floe-alloc"),
                List.of(2, 2), 0.5, 0.0, 5));
        assertEquals(0.5, s.durationSeconds());
        assertEquals(0.0, s.warmupSeconds());
        assertEquals(5, s.runs());
        assertEquals(List.of(2), s.threads());
        assertEquals(List.of("floe-alloc", "malloc"), s.impls(), "display order, not option order");
    }

    @Test
    void missingOptionsTakeTheQuickDefaults() {
        Settings s = Settings.resolve(alloc, BenchOptions.defaults());
        assertEquals(Mode.QUICK, s.mode());
        assertEquals(3, s.runs());
        assertEquals(alloc.impls(), s.impls());
    }

    @Test
    void anUnknownImplementationIsRefusedWithTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, BenchOptions.defaults().withImpls(List.of("jemalloc"))));
        assertTrue(e.getMessage().contains("floe-alloc"), e.getMessage());
    }

    @Test
    void outOfRangeValuesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, new BenchOptions(null, null, List.of(0), null, null, null)));
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, new BenchOptions(null, null, null, 0.0, null, null)));
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, new BenchOptions(null, null, null, null, null, 0)));
    }

    @Test
    void infiniteSecondsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, new BenchOptions(null, null, null, Double.POSITIVE_INFINITY, null, null)));
        assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(alloc, new BenchOptions(null, null, null, null, Double.POSITIVE_INFINITY, null)));
    }

    @Test
    void theManualSuiteRefusesDurationAndWarmupItWouldIgnore() {
        Suite manual = new ManualSuite();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(manual, new BenchOptions(null, null, null, 0.05, 0.0, null)));
        assertTrue(e.getMessage().contains("manual") && e.getMessage().contains("--duration")
                && e.getMessage().contains("--warmup"), e.getMessage());
        assertEquals(List.of(1), Settings.resolve(manual, new BenchOptions(null, null, List.of(1), null, null, 1)).threads());
    }

    @Test
    void theDefragSuiteRefusesThreadCountsItWouldNotRun() {
        Suite defrag = new DefragSuite();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.resolve(defrag, new BenchOptions(null, null, List.of(1, 2), null, null, null)));
        assertTrue(e.getMessage().contains("defrag") && e.getMessage().contains("--threads"), e.getMessage());
        assertEquals(List.of(1), Settings.resolve(defrag, new BenchOptions(null, null, List.of(1), null, null, null)).threads());
    }

    @Test
    void theMainJobLeavesOutWhatASuiteCannotHonourAndKeepsTheRest() {
        BenchOptions given = new BenchOptions(null, null, List.of(2), 0.05, 0.0, 1);
        BenchOptions forManual = given.without(new ManualSuite().unusableOptions(given).keySet());
        assertEquals(new BenchOptions(null, null, List.of(2), null, null, 1), forManual);
        Settings s = Settings.resolve(new ManualSuite(), forManual);
        assertEquals(List.of(2), s.threads());
        assertEquals(1, s.runs());
    }
}
