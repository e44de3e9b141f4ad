package dev.floe.bench.harness;

/**
 * A metric that ratios compare, by the name it has in the JSON ({@code ops_per_s},
 * {@code rss_bytes}, …).
 *
 * @param name           the metric's JSON name
 * @param higherIsBetter true for throughput, false for memory and latency
 * @param floor          values below it count as the floor in ratios, so that a near-zero
 *                       memory delta (noise) cannot produce an arbitrarily large ratio
 */
public record Metric(String name, boolean higherIsBetter, double floor) {

    /** Operations per second: higher is better. */
    public static final Metric OPS_PER_S = new Metric("ops_per_s", true, 0);

    /** A metric where less is better (memory, latency), with its noise floor. */
    public static Metric lowerIsBetter(String name, double floor) {
        return new Metric(name, false, floor);
    }
}
