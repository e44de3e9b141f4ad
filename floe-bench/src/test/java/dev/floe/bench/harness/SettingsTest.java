package dev.floe.bench.harness;

import dev.floe.bench.alloc.AllocSuite;
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
}
