package dev.floe.bench.map;

import dev.floe.bench.harness.MemorySnapshot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Samples the process's RSS ({@code VmRSS}) on a daemon thread while a run is measured, for the
 * put-delete flatness check. The interval is a two-hundredth of the run, between 20 ms and 1 s
 * (a 0.3 s quick run: every 20 ms; a 5-minute run: every second, 300 samples).
 */
final class RssSampler implements AutoCloseable {

    private final List<Long> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    private RssSampler(long intervalNanos) {
        thread = new Thread(() -> {
            while (!stopped) {
                long rss = MemorySnapshot.currentRss();
                synchronized (samples) {
                    samples.add(rss);
                }
                LockSupport.parkNanos(intervalNanos);
            }
        }, "floe-bench-rss");
        thread.setDaemon(true);
    }

    /** Starts sampling for a run of {@code seconds}. */
    static RssSampler start(double seconds) {
        long interval = (long) Math.min(1e9, Math.max(20e6, seconds * 1e9 / 200));
        RssSampler s = new RssSampler(interval);
        s.thread.start();
        return s;
    }

    /** Stops sampling and takes one last sample. */
    @Override
    public void close() {
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (samples) {
            samples.add(MemorySnapshot.currentRss());
        }
    }

    /** The samples so far. */
    List<Long> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
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
