package dev.floe.bench.harness;

import java.util.Arrays;

/**
 * The statistics the reports use: median, min and max of a run series, and the median of
 * per-pair ratios between two implementations measured in interleaved runs.
 *
 * <p>Why per-pair ratios: runs are taken A B A B …, so run {@code i} of A and run {@code i} of B
 * are neighbours in time and share whatever the machine was doing then (a noisy neighbour,
 * thermal state, a page-cache flush). Their ratio cancels that drift; the median of the
 * ratios then discards the odd disturbed pair. The ratio of two medians would not.
 */
public final class Stats {

    private Stats() {}

    /**
     * The median of the defined values; the mean of the two middle ones for an even count. NaN
     * (a value a run could not define, such as the ratio of two runs that both did nothing) is
     * left out rather than sorted above every number; NaN if no value is defined.
     */
    public static double median(double[] values) {
        if (values.length == 0) throw new IllegalArgumentException("median of no values");
        double[] v = defined(values);
        if (v.length == 0) return Double.NaN;
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** Median, min and max of a series' defined values (see {@link #median}); all NaN if none is. */
    public static Summary summarize(double[] values) {
        if (values.length == 0) throw new IllegalArgumentException("summary of no values");
        double[] v = defined(values);
        if (v.length == 0) return new Summary(Double.NaN, Double.NaN, Double.NaN);
        return new Summary(median(v), Arrays.stream(v).min().orElseThrow(), Arrays.stream(v).max().orElseThrow());
    }

    private static double[] defined(double[] values) {
        return Arrays.stream(values).filter(x -> !Double.isNaN(x)).toArray();
    }

    /**
     * The ratio of each pair {@code (impl[i], vs[i])}, oriented so that a value above 1 means
     * {@code impl} did better: {@code impl / vs} when higher is better, {@code vs / impl} when
     * lower is better. Values below the metric's floor are raised to it first.
     */
    public static double[] pairRatios(double[] impl, double[] vs, Metric metric) {
        if (impl.length != vs.length) {
            throw new IllegalArgumentException("unpaired runs: " + impl.length + " vs " + vs.length);
        }
        double[] r = new double[impl.length];
        for (int i = 0; i < r.length; i++) {
            double a = Math.max(impl[i], metric.floor());
            double b = Math.max(vs[i], metric.floor());
            r[i] = metric.higherIsBetter() ? a / b : b / a;
        }
        return r;
    }

    /** The median of {@link #pairRatios}. */
    public static double medianRatio(double[] impl, double[] vs, Metric metric) {
        return median(pairRatios(impl, vs, metric));
    }
}
