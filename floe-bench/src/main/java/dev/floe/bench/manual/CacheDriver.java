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
 *
 * <p>Expiration runs on a virtual clock: request {@code i} of thread {@code t} happens at
 * {@code (i * threads + t) * REQUEST_INTERVAL_NANOS}, a server taking one request per
 * microsecond. So both implementations do the same requests with the same hits, misses and
 * expirations whatever their speed. (The paper uses wall-clock time; on a machine shared with
 * other work that turns load into different workloads — a slowed run expires more entries,
 * misses more and allocates more — and single runs moved by 2x.)
 */
final class CacheDriver {
    /** Virtual time between two requests of the whole cache: 1 µs (a million requests per second). */
    static final long REQUEST_INTERVAL_NANOS = 1_000;

    private CacheDriver() {}

    /** Seconds to complete all requests. */
    static double run(SlidingCache<?> cache, int threads, int requests, int keys, long seed) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            int share = requests / threads + (t < requests % threads ? 1 : 0);
            SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + t);
            workers.add(Thread.ofPlatform().name("cache-" + t).start(() -> {
                try (SlidingCache<?>.Worker w = cache.worker()) {
                    start.await();
                    for (int i = 0; i < share; i++) {
                        w.request(rnd.nextInt(keys), ((long) i * threads + id) * REQUEST_INTERVAL_NANOS);
                    }
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
