package dev.floe.bench.map;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The pre-generated input of the rollup workload (the Oak paper generates all of it in advance,
 * to measure ingestion in isolation): a seeded, synthetic web-analytics event stream, stored
 * column-wise so that it costs the same few dozen bytes per tuple on the heap of every
 * implementation (it stays reachable during the measurement and cancels out of the heap delta).
 *
 * <p>A tuple:
 * <ul>
 *   <li>{@code timestamp}: milliseconds. A clock advances by exponential gaps averaging
 *       {@code 1000 / eventsPerSecond} ms (spatially local: the index grows at its end), and each
 *       event is stamped up to {@code jitterMs} earlier (late arrivals), so timestamps are only
 *       nearly increasing. The index truncates them to its granularity (one second by default,
 *       so 50,000 events per bucket at the default rate).</li>
 *   <li>string dimensions, as pooled {@code String}s that the index maps to ints through its
 *       {@link RollupDictionary}s: {@code country}, {@code device} (4 values: 55% / 38% / 6% /
 *       1%), {@code browser}, {@code page} (a site section, or a page); cardinalities and Zipf
 *       skews by {@link Profile}.</li>
 *   <li>integer dimensions: {@code status} (HTTP status, 6 codes, 90% 200) and
 *       {@code version} (client build, from 100; by profile).</li>
 *   <li>metrics: {@code bytes} (log-normal, median ~4.9 KB), {@code latency} ms (log-normal,
 *       median ~55 ms) and {@code user} (a user id: half of the events from 20,000 active users,
 *       half from 2,000,000) for the unique-user sketch.</li>
 * </ul>
 */
final class RollupTuples {

    static final String[] STRING_DIMS = {"country", "device", "browser", "page"};
    static final String[] INT_DIMS = {"status", "version"};
    static final String[] METRICS = {"bytes", "latency", "user"};
    static final int BYTES = 0, LATENCY = 1, USER = 2;

    /** 2024-01-01T00:00:00Z. */
    static final long EPOCH_MS = 1_704_067_200_000L;

    /**
     * Dimension cardinalities. {@link #ROLLUP} (the default): a stream meant for rollup, with
     * low-cardinality dimensions, so that many tuples of a time bucket share a row (about 8
     * tuples per row at the defaults: 50,000 events per one-second bucket; rollup pays off only
     * when the dimensions' combinations are few compared with the events per bucket, with Zipf
     * tails even a 20-bit space of realistic web dimensions rolls up by less than 1.5x);
     * {@link #WIDE}: high-cardinality dimensions (a page URL
     * among 5,000), where almost every tuple is a row of its own, as in the Oak paper's Druid
     * experiment (unique tuples).
     */
    enum Profile {
        /** country 16 (Zipf 1.5), device 4, browser 5 (Zipf 1.5), site section 8 (Zipf 1.5), status 6, version 3 (Zipf 1.5). */
        ROLLUP(16, 1.5, 5, 1.5, 8, 1.5, 3, 1.5),
        /** country 200 (Zipf 1.2), device 4, browser 16 (Zipf 1.5), page 5,000 (Zipf 1.1), status 6, version 12 (Zipf 1.3): about 1.1 tuples per row. */
        WIDE(200, 1.2, 16, 1.5, 5000, 1.1, 12, 1.3);

        final int countries, browsers, pages, versions;
        final double countryZipf, browserZipf, pageZipf, versionZipf;

        Profile(int countries, double countryZipf, int browsers, double browserZipf, int pages, double pageZipf,
                int versions, double versionZipf) {
            this.countries = countries;
            this.countryZipf = countryZipf;
            this.browsers = browsers;
            this.browserZipf = browserZipf;
            this.pages = pages;
            this.pageZipf = pageZipf;
            this.versions = versions;
            this.versionZipf = versionZipf;
        }

        static Profile byName(String name) {
            return valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** What to generate. */
    record Spec(int tuples, long seed, double eventsPerSecond, int jitterMs, Profile profile) {
        Spec {
            if (tuples < 0) throw new IllegalArgumentException("tuples must not be negative: " + tuples);
            if (!(eventsPerSecond > 0)) throw new IllegalArgumentException("eventsPerSecond must be positive");
            if (jitterMs < 0) throw new IllegalArgumentException("jitterMs must not be negative");
        }

        /** The defaults: 50,000 events/s, up to 2 s late, the rollup profile. */
        static Spec of(int tuples, long seed) {
            return new Spec(tuples, seed, DEFAULT_EVENTS_PER_SECOND, DEFAULT_JITTER_MS, Profile.ROLLUP);
        }
    }

    static final double DEFAULT_EVENTS_PER_SECOND = 50_000;
    static final int DEFAULT_JITTER_MS = 2_000;

    /** Heap bytes of the columns per tuple (8 + 4 string refs + 2 ints + 3 longs, compressed refs). */
    static final int HEAP_BYTES_PER_TUPLE = 8 + 4 * 4 + 2 * 4 + 3 * 8;

    final int size;
    final long[] timestamps;
    /** {@code strings[d][i]}: string dimension d of tuple i (pooled instances). */
    final String[][] strings;
    /** {@code ints[d][i]}: integer dimension d of tuple i. */
    final int[][] ints;
    /** {@code metrics[m][i]}: metric m of tuple i. */
    final long[][] metrics;
    final Spec spec;

    private RollupTuples(Spec spec) {
        this.spec = spec;
        this.size = spec.tuples();
        this.timestamps = new long[size];
        this.strings = new String[STRING_DIMS.length][size];
        this.ints = new int[INT_DIMS.length][size];
        this.metrics = new long[METRICS.length][size];
    }

    /** Generates {@code spec.tuples()} tuples; the same spec always gives the same tuples. */
    static RollupTuples generate(Spec spec) {
        RollupTuples t = new RollupTuples(spec);
        SplittableRandom r = new SplittableRandom(spec.seed());
        Profile pr = spec.profile();
        String[] countries = pool("cc-", pr.countries);
        String[] devices = {"mobile", "desktop", "tablet", "tv"};
        String[] browsers = pool("browser-", pr.browsers);
        String[] pages = pool("/site/section-", pr.pages);
        Discrete country = Discrete.zipf(pr.countries, pr.countryZipf);
        Discrete device = new Discrete(new double[] {0.55, 0.38, 0.06, 0.01});
        Discrete browser = Discrete.zipf(pr.browsers, pr.browserZipf);
        Discrete page = Discrete.zipf(pr.pages, pr.pageZipf);
        int[] statuses = {200, 304, 404, 301, 500, 503};
        Discrete status = new Discrete(new double[] {0.90, 0.04, 0.03, 0.015, 0.01, 0.005});
        Discrete version = Discrete.zipf(pr.versions, pr.versionZipf);
        double meanGap = 1000.0 / spec.eventsPerSecond();
        double clock = EPOCH_MS;
        for (int i = 0; i < t.size; i++) {
            clock += -meanGap * Math.log(1 - r.nextDouble());
            long late = spec.jitterMs() == 0 ? 0 : r.nextInt(spec.jitterMs() + 1);
            t.timestamps[i] = (long) clock - late;
            t.strings[0][i] = countries[country.sample(r)];
            t.strings[1][i] = devices[device.sample(r)];
            t.strings[2][i] = browsers[browser.sample(r)];
            t.strings[3][i] = pages[page.sample(r)];
            t.ints[0][i] = statuses[status.sample(r)];
            t.ints[1][i] = 100 + version.sample(r);
            t.metrics[BYTES][i] = Math.round(Math.exp(8.5 + 1.2 * r.nextGaussian()));
            t.metrics[LATENCY][i] = 1 + Math.round(Math.exp(4.0 + 0.7 * r.nextGaussian()));
            t.metrics[USER][i] = r.nextBoolean() ? r.nextInt(20_000) : r.nextInt(2_000_000);
        }
        return t;
    }

    /** Heap bytes of the input's columns (the pooled strings excluded: a few hundred KB). */
    long heapBytes() {
        return (long) size * HEAP_BYTES_PER_TUPLE;
    }

    private static String[] pool(String prefix, int n) {
        String[] s = new String[n];
        for (int i = 0; i < n; i++) s[i] = prefix + i;
        return s;
    }

    /** A discrete distribution over {@code 0..n-1} sampled by binary search in its cumulative weights. */
    static final class Discrete {
        private final double[] cdf;

        Discrete(double[] weights) {
            cdf = new double[weights.length];
            double sum = 0;
            for (int i = 0; i < weights.length; i++) cdf[i] = sum += weights[i];
            for (int i = 0; i < cdf.length; i++) cdf[i] /= sum;
            cdf[cdf.length - 1] = 1.0;
        }

        static Discrete zipf(int n, double exponent) {
            double[] w = new double[n];
            for (int k = 0; k < n; k++) w[k] = 1 / Math.pow(k + 1, exponent);
            return new Discrete(w);
        }

        int sample(SplittableRandom r) {
            int i = Arrays.binarySearch(cdf, r.nextDouble());
            return i >= 0 ? i : Math.min(cdf.length - 1, -i - 1);
        }
    }
}
