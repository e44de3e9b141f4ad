package dev.floe.bench.alloc;

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

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The release goal judges each run on its own RSS before, at peak and after (each run is a fresh
 * JVM) and reports the median of those verdicts' ratios, not a mix of medians from different runs.
 */
class ReleaseGoalTest {
    private static final double MIB = 1 << 20;

    /** A run as {@link ReleaseWorkload} reports it. */
    private static Sample run(double before, double peak, double after) {
        return new Sample(Map.of("ops_per_s", 1e6, "rss_bytes", after - before), new MemorySnapshot((long) after, 0, 0, 0),
                Map.of("rss_before", before, "rss_peak", peak, "rss_after", after,
                        AllocSuite.RELEASE_SHARE, AllocSuite.releaseShare(before, peak, after)));
    }

    private static TargetCheck releaseGoal(Sample... runs) {
        Result r = Result.of(new Cell(AllocSuite.RELEASE, 1, Isolation.FRESH_JVM), "floe-alloc", List.of(runs));
        SuiteReport report = new SuiteReport("alloc", Map.of(), List.of(r), List.of(), List.of());
        return new AllocSuite().targets(report).stream().filter(c -> c.target().equals("release-rss")).findFirst().orElseThrow();
    }

    /**
     * Two of three runs miss (limits 209 and 407 MiB, RSS after 300 and 500 MiB). Medians taken
     * separately (before 300, peak 1000, after 350 MiB: limit 407 MiB) would call the goal met.
     */
    @Test
    void aGoalMostRunsMissedIsMissed() {
        TargetCheck t = releaseGoal(
                run(100 * MIB, 1000 * MIB, 300 * MIB),
                run(300 * MIB, 1000 * MIB, 500 * MIB),
                run(300 * MIB, 1000 * MIB, 350 * MIB));
        assertFalse(t.met(), "release-rss met with the median run at " + t.observed() + " of its limit");
    }

    @Test
    void aGoalMostRunsMetIsMet() {
        TargetCheck t = releaseGoal(
                run(100 * MIB, 1000 * MIB, 150 * MIB),  // limit 209 MiB
                run(300 * MIB, 1000 * MIB, 500 * MIB),  // limit 407 MiB: missed
                run(300 * MIB, 1000 * MIB, 350 * MIB)); // limit 407 MiB
        assertTrue(t.met(), "median run at " + t.observed() + " of its limit");
    }
}
