package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void undefinedValuesAreLeftOutOfTheMedianNotSortedAboveEveryNumber() {
        assertEquals(1.5, Stats.median(new double[] {Double.NaN, 1, 2}));
        assertTrue(Double.isNaN(Stats.median(new double[] {Double.NaN, Double.NaN})));
    }

    @Test
    void aPairOfRunsThatBothDidNothingDoesNotBiasTheMedianRatio() {
        // pairs: 0/0 (undefined), 2/1, 3/1 -> median of 2 and 3
        assertEquals(2.5, Stats.medianRatio(new double[] {0, 2, 3}, new double[] {0, 1, 1}, Metric.OPS_PER_S));
    }

    @Test
    void summaryOfASeriesWithAnUndefinedRunUsesTheOthers() {
        assertEquals(new Summary(3, 2, 4), Stats.summarize(new double[] {Double.NaN, 4, 2}));
    }

    @Test
    void anUndefinedSummaryIsWrittenAsNullNotZero() {
        Summary none = Stats.summarize(new double[] {Double.NaN});
        assertEquals("{\"median\":null,\"min\":null,\"max\":null}", Json.compact(none.toJson()));
    }
}
