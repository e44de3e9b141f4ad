package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A goal's verdict and its JSON, for finite and undefined observations. */
class TargetCheckTest {

    /**
     * The other side did no operation in any run (somar and map report 0 ops/s when a run runs
     * out of memory): every pair's ratio is infinite, which the ratio's JSON writes as null
     * (docs/benchmarks.md). The goal read from it must say the same, and not claim it was met.
     */
    @Test
    void aGoalOnAnInfiniteRatioIsMissedWithNoObservedFigure() {
        double r = Stats.medianRatio(new double[] {2e6, 2e6, 2e6}, new double[] {0, 0, 0}, Metric.OPS_PER_S);
        assertTrue(Double.isInfinite(r));
        Ratio ratio = new Ratio("ll-read-write", 1, "floe-nova", "gc-g1", "ops_per_s", r);
        assertNull(Json.parseObject(Json.compact(ratio.toJson())).get("median_ratio"));

        TargetCheck t = new TargetCheck("ops-vs-gc-g1", "floe-nova >= 2x gc-g1 ops/s", "ll-read-write", 1,
                "floe-nova", "gc-g1", "ops_per_s_ratio", r, ">=", 2.0);
        Map<String, Object> json = Json.parseObject(Json.compact(t.toJson()));
        assertNull(json.get("observed"), "observed of an infinite ratio: " + json.get("observed"));
        assertEquals(false, json.get("met"));
        assertFalse(t.met());
        assertEquals("-", Units.of(t.metric(), t.observed()));
    }

    @Test
    void aGoalOnNaNIsMissedWithNoObservedFigure() {
        TargetCheck t = new TargetCheck("x", "d", "w", 1, "a", null, "rss_after_bytes", Double.NaN, "<=", 1e9);
        assertFalse(t.met());
        assertNull(Json.parseObject(Json.compact(t.toJson())).get("observed"), "NaN was written as 0 before");
    }

    @Test
    void finiteObservationsAreJudgedAndRounded() {
        TargetCheck above = new TargetCheck("x", "d", "w", 1, "a", "b", "ops_per_s_ratio", 2.123456, ">=", 2.0);
        assertTrue(above.met());
        assertEquals(2.1235, Json.parseObject(Json.compact(above.toJson())).get("observed"));
        TargetCheck below = new TargetCheck("x", "d", "w", 1, "a", null, "rss_after_bytes", 5e8, "<=", 4e8);
        assertFalse(below.met());
        assertEquals(500_000_000L, Json.parseObject(Json.compact(below.toJson())).get("observed"));
    }

    /** Byte sizes by key: RSS readings and *bytes* keys; a count of RSS samples is a plain number. */
    @Test
    void figuresAreFormattedInTheUnitTheirKeyNames() {
        assertEquals("16", Units.of("rss_samples", 16));
        assertEquals("16.0 MiB", Units.of("rss_first_bytes", 16 << 20));
        assertEquals("1.0 KiB", Units.of("rss_after", 1024));
        assertEquals("1.0 KiB", Units.of("rss", 1024));
        assertEquals("1.25x", Units.of("rss_flat_ratio", 1.25));
        assertEquals("1.5 k", Units.of("entries_per_s", 1500));
        assertEquals("250", Units.of("rss_sample_ms", 250));
    }
}
