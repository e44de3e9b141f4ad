package dev.floe.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Racing threads in lock step, for tests of "exactly one of concurrent X wins": in every round
 * each of {@code threads} threads acts on items {@code 0 .. items-1} in order, and all threads
 * start on item {@code i} together (a spin barrier per item), so that on two shared cores the
 * threads that run collide on the same item instead of one finishing the round before the next
 * is scheduled (with a plain start signal, most items saw no race at all).
 *
 * <p>Use: prepare the items, call {@link #round()}, check the results, repeat; close at the end.
 * Whatever the caller writes before {@code round()} is visible to the racers (the round counter
 * is volatile), and whatever the racers write is visible to the caller after it returns. An
 * action that throws is recorded in {@link #failures()} with its stack trace, and the round
 * goes on.
 */
public final class LockstepRace implements AutoCloseable {

    /** What one racing thread does to one item. */
    @FunctionalInterface
    public interface Action {
        void act(int thread, int item) throws Exception;
    }

    private static final long ROUND_TIMEOUT_NANOS = 30_000_000_000L;

    private final int threads;
    private final int items;
    private final Action action;
    private final AtomicLong round = new AtomicLong(); // -1: stop
    private final AtomicLong arrivals = new AtomicLong(); // every racer adds 1 per item
    private final AtomicInteger finished = new AtomicInteger();
    private final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<Thread> racers = new ArrayList<>();
    private long rounds;

    public LockstepRace(String name, int threads, int items, Action action) {
        if (threads < 2 || items < 1) throw new IllegalArgumentException("threads " + threads + ", items " + items);
        this.threads = threads;
        this.items = items;
        this.action = action;
        for (int t = 0; t < threads; t++) {
            int thread = t;
            racers.add(Thread.ofPlatform().daemon().name(name + "-" + t).start(() -> race(thread)));
        }
    }

    private void race(int thread) {
        long seen = 0;
        while (true) {
            long r;
            int spins = 0;
            while ((r = round.get()) == seen) spin(++spins); // volatile: the caller's preparation is visible
            if (r < 0) return;
            seen = r;
            for (int i = 0; i < items; i++) {
                long all = arrivals.incrementAndGet() + threads - 1;
                all -= all % threads; // every racer has arrived at item i
                spins = 0;
                while (arrivals.get() < all && round.get() >= 0) spin(++spins);
                try {
                    action.act(thread, i);
                } catch (Throwable e) {
                    StringWriter trace = new StringWriter();
                    e.printStackTrace(new PrintWriter(trace));
                    failures.add("round " + r + ", item " + i + ": thread " + thread + " threw " + trace);
                }
            }
            finished.incrementAndGet();
        }
    }

    private static void spin(int spins) {
        if (spins % 1024 == 0) Thread.yield(); // two shared cores: let the others arrive
        else Thread.onSpinWait();
    }

    /**
     * Runs one round and returns when every racer has finished it.
     *
     * @throws AssertionError if the racers do not finish within 30 s
     */
    public void round() {
        finished.set(0);
        round.incrementAndGet(); // go
        long start = System.nanoTime();
        while (finished.get() < threads) {
            Thread.yield();
            if (System.nanoTime() - start > ROUND_TIMEOUT_NANOS) throw new AssertionError("racers stuck in round " + rounds);
        }
        rounds++;
    }

    /** Rounds completed so far. */
    public long rounds() {
        return rounds;
    }

    /** Failures recorded by the racers (actions that threw) and by the caller. */
    public Queue<String> failures() {
        return failures;
    }

    @Override
    public void close() throws InterruptedException {
        round.set(-1);
        for (Thread t : racers) t.join(10_000);
    }
}
