package dev.floe.bench.defrag;

/**
 * Operation latencies in log-linear buckets (64 per power of two: at most 1.6% above the true
 * value), with the exact maximum. Recording is two array operations; no allocation.
 */
final class LatencyHistogram {
    private static final int SUB = 6; // log2 of buckets per power of two
    private final long[] counts = new long[64 << SUB];
    private long total;
    private long max;

    void record(long nanos) {
        long v = Math.max(1, nanos);
        counts[bucket(v)]++;
        total++;
        if (v > max) max = v;
    }

    private static int bucket(long v) {
        int exp = 63 - Long.numberOfLeadingZeros(v);
        if (exp < SUB) return (int) v;
        int sub = (int) ((v >>> (exp - SUB)) & ((1 << SUB) - 1));
        return ((exp - SUB + 1) << SUB) + sub;
    }

    /** The upper bound of bucket {@code b}. */
    private static long upper(int b) {
        if (b < (1 << SUB)) return b;
        int exp = (b >>> SUB) + SUB - 1;
        long sub = b & ((1 << SUB) - 1);
        return ((1L << SUB) + sub + 1) << (exp - SUB);
    }

    /** The {@code q}-quantile (0..1), as the upper bound of its bucket (capped at the maximum). */
    long quantile(double q) {
        if (total == 0) return 0;
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int b = 0; b < counts.length; b++) {
            seen += counts[b];
            if (seen >= rank) return Math.min(upper(b), max);
        }
        return max;
    }

    long max() {
        return max;
    }

    long count() {
        return total;
    }

    void addAll(LatencyHistogram o) {
        for (int b = 0; b < counts.length; b++) counts[b] += o.counts[b];
        total += o.total;
        max = Math.max(max, o.max);
    }
}
