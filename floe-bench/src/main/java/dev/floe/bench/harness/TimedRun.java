package dev.floe.bench.harness;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs N {@link TimedTask}s on N threads for a fixed time and counts their operations.
 *
 * <p>Protocol, one {@link Phaser} with a party per task plus the caller:
 * <ol>
 *   <li>every task sets up, then all arrive (phase 0): nobody starts early;</li>
 *   <li>the caller reads the clock, sleeps for the duration, raises the stop signal and reads
 *       the clock again; tasks run until they see the signal, then arrive (phase 1);</li>
 *   <li>the caller takes the memory snapshot while every block is still live, then arrives
 *       (phase 2); tasks tear down and deregister (phase 3).</li>
 * </ol>
 * A task that throws deregisters at once and raises the stop signal, so the others and the
 * caller never wait for it; the first failure is rethrown to the caller.
 *
 * <p>Threads come from one pool of daemon threads that lives as long as the JVM, so consecutive
 * runs reuse the same threads: thread-local allocator caches stay warm from warm-up to
 * measurement, as in a long-running service.
 */
public final class TimedRun {

    private static final ExecutorService POOL = Executors.newCachedThreadPool(daemonThreads());

    private TimedRun() {}

    /** What a timed run measured: operations, elapsed nanoseconds, memory at the end of the window. */
    public record Outcome(long ops, long nanos, MemorySnapshot memory) {

        /** Operations per second over the window. */
        public double opsPerSecond() {
            return ops * 1e9 / nanos;
        }
    }

    /**
     * Runs the tasks concurrently for {@code seconds}.
     *
     * @param memory called once after the window, before tear-down
     * @throws Exception the first exception a task threw
     */
    public static Outcome run(List<? extends TimedTask> tasks, double seconds, Supplier<MemorySnapshot> memory)
            throws Exception {
        int n = tasks.size();
        Phaser phaser = new Phaser(n + 1);
        StopSignal stop = new StopSignal();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] ops = new long[n];
        Future<?>[] futures = new Future<?>[n];
        for (int i = 0; i < n; i++) {
            TimedTask task = tasks.get(i);
            int index = i;
            futures[i] = POOL.submit(() -> {
                try {
                    task.setUp();
                    phaser.arriveAndAwaitAdvance();    // 0: all set up
                    ops[index] = task.run(stop);
                    phaser.arriveAndAwaitAdvance();    // 1: all stopped
                    phaser.arriveAndAwaitAdvance();    // 2: memory sampled
                    task.tearDown();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    stop.raise();
                } finally {
                    phaser.arriveAndDeregister();      // 3: done
                }
            });
        }
        phaser.arriveAndAwaitAdvance();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        for (long now = start; now < deadline && failure.get() == null; now = System.nanoTime()) {
            Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(deadline - now))));
        }
        stop.raise();
        long end = System.nanoTime();
        phaser.arriveAndAwaitAdvance();
        MemorySnapshot snapshot = failure.get() == null ? memory.get() : null;
        phaser.arriveAndAwaitAdvance();
        phaser.arriveAndAwaitAdvance();
        for (Future<?> f : futures) f.get();
        Throwable t = failure.get();
        if (t instanceof Exception e) throw e;
        if (t instanceof Error e) throw e;
        long total = 0;
        for (long o : ops) total += o;
        return new Outcome(total, end - start, snapshot);
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "floe-bench-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
