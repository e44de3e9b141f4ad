package dev.floe.bench.manual;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The peak-RSS helper of the manual suite. */
class PeakRssTest {

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
