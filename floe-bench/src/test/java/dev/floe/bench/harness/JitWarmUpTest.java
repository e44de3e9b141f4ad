package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The JIT warm-up rule shared by the suites. */
class JitWarmUpTest {

    @Test
    void everyOtherRoundHasAtLeastTwoThreads() {
        assertEquals(List.of(2, 1, 2, 1), List.of(JitWarmUp.roundThreads(0, 1), JitWarmUp.roundThreads(1, 1),
                JitWarmUp.roundThreads(2, 1), JitWarmUp.roundThreads(3, 1)));
        assertEquals(List.of(4, 4), List.of(JitWarmUp.roundThreads(0, 4), JitWarmUp.roundThreads(1, 4)),
                "a first cell with more threads keeps its count");
    }

    @Test
    void noTimeMeansExactlyOneRound() throws Exception {
        List<Integer> seen = new ArrayList<>();
        assertEquals(1, JitWarmUp.run(0, 0, seen::add));
        assertEquals(List.of(0), seen);
    }

    @Test
    void roundsRepeatUntilTheMinimumTimeHasPassed() throws Exception {
        List<Integer> seen = new ArrayList<>();
        long t0 = System.nanoTime();
        int rounds = JitWarmUp.run(0.05, 10, i -> {
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
        int rounds = JitWarmUp.run(0.05, 20, i -> Thread.sleep(10));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(rounds >= JitWarmUp.QUIET_ROUNDS, rounds + " rounds");
        assertTrue(ms < 5_000, "ended after " + ms + " ms");
    }

    @Test
    void aCellWarmUpRunsSlicesNoLongerThanItsLeastTime() throws Exception {
        List<Double> slices = new ArrayList<>();
        long t0 = System.nanoTime();
        int n = JitWarmUp.cell(0.03, 0.1, seconds -> {
            slices.add(seconds);
            Thread.sleep((long) (seconds * 1000));
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(n, slices.size());
        assertTrue(n >= JitWarmUp.QUIET_ROUNDS, n + " slices");
        for (double s : slices) assertEquals(0.03, s, 1e-12, "a slice never outlasts the least time");
        assertTrue(ms >= 30 && ms < 5_000, "ran " + ms + " ms: at least the least time, well under its maximum");
    }
}
