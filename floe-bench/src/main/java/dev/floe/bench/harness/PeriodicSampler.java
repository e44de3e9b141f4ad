package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Samples a few figures (process RSS, a store's resident bytes, …) at a fixed rate on a daemon
 * thread while a run is measured; {@link #close} stops it and takes one last sample, so every
 * series ends at the end of the run. Samples are taken at start + k × interval (fixed rate, not
 * fixed delay), so a series of a 10 s run at 100 ms has about 100 points whatever a sample costs.
 */
public final class PeriodicSampler implements AutoCloseable {
    private final LongSupplier[] probes;
    private final List<List<Long>> series = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    private PeriodicSampler(String name, long intervalNanos, LongSupplier[] probes) {
        this.probes = probes.clone();
        for (int i = 0; i < probes.length; i++) series.add(new ArrayList<>());
        thread = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
            long next = System.nanoTime();
            while (!stopped) {
                sample();
                next += intervalNanos;
                long wait;
                while (!stopped && (wait = next - System.nanoTime()) > 0) LockSupport.parkNanos(wait);
            }
        });
    }

    /**
     * Starts sampling every {@code intervalNanos}; series {@code i} holds the values of
     * {@code probes[i]}.
     */
    public static PeriodicSampler start(String threadName, long intervalNanos, LongSupplier... probes) {
        if (intervalNanos <= 0) throw new IllegalArgumentException("interval: " + intervalNanos);
        if (probes.length == 0) throw new IllegalArgumentException("nothing to sample");
        PeriodicSampler s = new PeriodicSampler(threadName, intervalNanos, probes);
        s.thread.start();
        return s;
    }

    private synchronized void sample() {
        for (int i = 0; i < probes.length; i++) series.get(i).add(probes[i].getAsLong());
    }

    /** The samples of probe {@code i} so far (a copy). */
    public synchronized List<Long> samples(int i) {
        return List.copyOf(series.get(i));
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
        sample();
    }
}
