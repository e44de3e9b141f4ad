package dev.floe.bench.lockfree;

import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Result;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.TargetCheck;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The release goal reads the median of each run's own RSS after / before (each run is a fresh JVM). */
class ReleaseGoalTest {
    private static final double MIB = 1 << 20;

    private static Sample run(double before, double after) {
        return new Sample(Map.of("ops_per_s", 1e6, "rss_bytes", after - before), new MemorySnapshot((long) after, 0, 0, 0),
                Map.of("rss_before", before, "rss_after", after, "rss_after_before", after / before,
                        "kept_share_of_growth", 0.05));
    }

    /**
     * Two of three runs keep more than 10%: 1.5 and 1.2 times their RSS before. Medians taken
     * separately (after 600 MiB, before 600 MiB) would give 1.0, met.
     */
    @Test
    void aGoalMostRunsMissedIsMissed() {
        Result r = Result.of(new Cell(LockfreeSuite.RELEASE, 1, Isolation.FRESH_JVM), "oa-ver", List.of(
                run(400 * MIB, 600 * MIB), run(600 * MIB, 720 * MIB), run(700 * MIB, 500 * MIB)));
        SuiteReport report = new SuiteReport("lockfree", Map.of(), List.of(r), List.of(), List.of());
        TargetCheck t = new LockfreeSuite().targets(report).stream()
                .filter(c -> c.target().equals("release-rss")).findFirst().orElseThrow();
        assertEquals(1.2, t.observed(), 1e-9);
        assertFalse(t.met());
    }
}
