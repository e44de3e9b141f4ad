package dev.floe.bench.map;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.PeriodicSampler;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The put-delete flatness check: the process's RSS ({@code VmRSS}) sampled while a run is
 * measured, and the summary of those samples. The interval is a two-hundredth of the run, between
 * 20 ms and 1 s (a 0.3 s quick run: every 20 ms; a 5-minute run: every second, 300 samples).
 */
final class RssFlatness {

    private RssFlatness() {}

    /** Starts sampling RSS for a run of {@code seconds} (series 0 of the returned sampler). */
    static PeriodicSampler sample(double seconds) {
        long interval = (long) Math.min(1e9, Math.max(20e6, seconds * 1e9 / 200));
        return PeriodicSampler.start("floe-bench-rss", interval, MemorySnapshot::currentRss);
    }

    /**
     * First, last, min and max RSS of the samples, their count, and {@code rss_flat_ratio}: the
     * largest sample over the first (1 = flat; 1.1 = grew by 10% during the run). Empty when
     * RSS cannot be read (0 samples on systems without {@code /proc}).
     */
    static Map<String, Double> summarize(List<Long> samples) {
        Map<String, Double> m = new LinkedHashMap<>();
        List<Long> s = samples.stream().filter(x -> x > 0).toList();
        if (s.isEmpty()) return m;
        long first = s.getFirst(), last = s.getLast();
        long min = Long.MAX_VALUE, max = 0;
        for (long x : s) {
            min = Math.min(min, x);
            max = Math.max(max, x);
        }
        m.put("rss_first_bytes", (double) first);
        m.put("rss_last_bytes", (double) last);
        m.put("rss_min_bytes", (double) min);
        m.put("rss_max_bytes", (double) max);
        m.put("rss_samples", (double) s.size());
        m.put("rss_flat_ratio", (double) max / first);
        return m;
    }
}
