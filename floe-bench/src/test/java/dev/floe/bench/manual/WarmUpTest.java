package dev.floe.bench.manual;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The warm-up rule and the peak-RSS helper of the manual suite. */
class WarmUpTest {

    @Test
    void noTimeMeansExactlyOneRound() throws Exception {
        List<Integer> seen = new ArrayList<>();
        assertEquals(1, WarmUp.run(0, 0, seen::add));
        assertEquals(List.of(0), seen);
    }

    @Test
    void roundsRepeatUntilTheMinimumTimeHasPassed() throws Exception {
        List<Integer> seen = new ArrayList<>();
        long t0 = System.nanoTime();
        int rounds = WarmUp.run(0.05, 10, i -> {
            seen.add(i);
            Thread.sleep(10);
        });
        assertTrue(System.nanoTime() - t0 >= 50_000_000L, "ran at least the minimum time");
        assertTrue(rounds >= 2, "several 10 ms rounds in 50 ms: " + rounds);
        for (int i = 0; i < rounds; i++) assertEquals(i, seen.get(i), "rounds are numbered from 0");
    }

    @Test
    void quietRoundsEndTheWarmUpLongBeforeTheMaximum() throws Exception {
        // rounds that only sleep compile (almost) nothing: quiet, so the warm-up ends soon after
        // the minimum instead of running to the 20 s maximum
        long t0 = System.nanoTime();
        int rounds = WarmUp.run(0.05, 20, i -> Thread.sleep(10));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(rounds >= WarmUp.QUIET_ROUNDS, rounds + " rounds");
        assertTrue(ms < 5_000, "ended after " + ms + " ms");
    }

    @Test
    void peakRssIsAtLeastTheCurrentRssAfterAResetAndTheWaitEnds() throws Exception {
        long t0 = System.nanoTime();
        PeakRss.awaitSettled();
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "the wait is bounded");
        if (!PeakRss.reset()) return; // not Linux: nothing more to check
        long current = PeakRss.current();
        assertTrue(current > 0);
        assertTrue(PeakRss.peak() >= current - (1 << 20), "peak " + PeakRss.peak() + " vs current " + current);
    }
}
