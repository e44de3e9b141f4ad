package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class StatsTest {

    @Test
    void medianOfAnOddCountIsTheMiddleValue() {
        assertEquals(3, Stats.median(new double[] {5, 1, 3}));
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, Stats.median(new double[] {4, 1, 3, 2}));
    }

    @Test
    void medianDoesNotReorderItsInput() {
        double[] v = {3, 1, 2};
        Stats.median(v);
        assertArrayEquals(new double[] {3, 1, 2}, v);
    }

    @Test
    void medianOfNothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Stats.median(new double[0]));
    }

    @Test
    void summaryHoldsMedianMinAndMax() {
        assertEquals(new Summary(20, 10, 90), Stats.summarize(new double[] {90, 10, 20}));
    }

    @Test
    void throughputRatioIsImplOverVs() {
        assertArrayEquals(new double[] {2, 0.5}, Stats.pairRatios(new double[] {20, 5}, new double[] {10, 10},
                Metric.OPS_PER_S));
    }

    @Test
    void memoryRatioIsVsOverImplSoAboveOneMeansImplUsesLess() {
        Metric rss = Metric.lowerIsBetter("rss_bytes", 0);
        assertArrayEquals(new double[] {4}, Stats.pairRatios(new double[] {25}, new double[] {100}, rss));
    }

    @Test
    void valuesBelowTheFloorCountAsTheFloor() {
        Metric rss = Metric.lowerIsBetter("rss_bytes", 10);
        assertArrayEquals(new double[] {10}, Stats.pairRatios(new double[] {-3}, new double[] {100}, rss));
    }

    @Test
    void medianRatioIsTheMedianOfPerPairRatiosNotTheRatioOfMedians() {
        // pairs: 2/1, 10/20, 30/10 -> ratios 2, 0.5, 3 -> median 2 (ratio of medians would be 10/10 = 1)
        double[] impl = {2, 10, 30};
        double[] vs = {1, 20, 10};
        assertEquals(2, Stats.medianRatio(impl, vs, Metric.OPS_PER_S));
    }

    @Test
    void unpairedRunsAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> Stats.pairRatios(new double[] {1, 2}, new double[] {1}, Metric.OPS_PER_S));
    }
}
