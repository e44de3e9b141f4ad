package dev.floe.bench.manual;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the paper's request loop: {@code threads} threads share the cache and issue
 * {@code requests} requests in total, keys uniform over {@code [0, keys)}; the result is the
 * wall time from the common start to the last thread's end (the paper's time to completion).
 */
final class CacheDriver {
    private CacheDriver() {}

    /** Seconds to complete all requests. */
    static double run(SlidingCache<?> cache, int threads, int requests, int keys, long seed) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = requests / threads + (t < requests % threads ? 1 : 0);
            SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + t);
            workers.add(Thread.ofPlatform().name("cache-" + t).start(() -> {
                try (SlidingCache<?>.Worker w = cache.worker()) {
                    start.await();
                    for (int i = 0; i < share; i++) w.request(rnd.nextInt(keys), System.nanoTime());
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread w : workers) w.join();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (failure.get() != null) throw new IllegalStateException("a request thread failed", failure.get());
        return seconds;
    }
}
