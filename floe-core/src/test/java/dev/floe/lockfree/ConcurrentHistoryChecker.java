package dev.floe.lockfree;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs random insert/remove/contains/get on a structure from several threads, each recording its
 * own history of successful updates, and checks the final state against the histories:
 * for every key, successful inserts minus successful removes is 1 if the key is present at the
 * end and 0 if not, and a present key holds a value some successful insert of that key wrote
 * (values are unique per insert). Every value also names its key and its thread
 * ({@link #value}), so that a {@code get(k)} during the run must return a value written for
 * {@code k} by one of the threads: a value of another key (the words of a node freed and reused
 * for another key, read and accepted) is a stale read. {@link #violations()} lists what does not
 * hold.
 */
final class ConcurrentHistoryChecker {
    private final LockFreeLongMap map;
    private final int keys;
    private final long[][] inserts;
    private final long[][] removes;
    private final List<Set<Long>> valuesByKey = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    ConcurrentHistoryChecker(LockFreeLongMap map, int keys, int threads) {
        if (keys > 1 << 16 || threads > 1 << 15) throw new IllegalArgumentException("keys or threads do not fit a value");
        this.map = map;
        this.keys = keys;
        this.inserts = new long[threads][keys];
        this.removes = new long[threads][keys];
        for (int k = 0; k < keys; k++) valuesByKey.add(java.util.concurrent.ConcurrentHashMap.newKeySet());
    }

    private Thread[] threads;

    /** The value thread {@code id}'s {@code seq}-th insert attempt writes for key {@code k}: unique, and names its key. */
    static long value(int id, int k, long seq) {
        return ((long) id << 48) | ((long) k << 32) | (seq & 0xFFFF_FFFFL);
    }

    /** The key a value was written for. */
    static long keyOf(long v) {
        return (v >>> 32) & 0xFFFF;
    }

    /** Runs every thread for {@code millis}; virtual threads if asked. */
    void run(long millis, boolean virtual) throws InterruptedException {
        if (!run(millis, virtual, 60_000)) throw new AssertionError("an operation did not return within a minute");
    }

    /**
     * Runs every thread for {@code millis} and waits at most {@code graceMillis} more for them;
     * returns false if some operation never returned (its thread is a daemon and stays behind;
     * closing the allocator makes its next access fail, which ends it).
     */
    boolean run(long millis, boolean virtual, long graceMillis) throws InterruptedException {
        int threads = inserts.length;
        long end = System.nanoTime() + millis * 1_000_000L;
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Runnable body = () -> {
                try {
                    SplittableRandom rnd = new SplittableRandom(id * 31L + 7);
                    long seq = 0;
                    while (System.nanoTime() < end) {
                        for (int i = 0; i < 64; i++) {
                            int k = rnd.nextInt(keys);
                            int op = rnd.nextInt(8);
                            if (op < 3) {
                                long v = value(id, k, seq++);
                                if (map.insert(k, v)) {
                                    inserts[id][k]++;
                                    valuesByKey.get(k).add(v);
                                }
                            } else if (op < 6) {
                                if (map.remove(k)) removes[id][k]++;
                            } else if (op == 6) {
                                map.contains(k);
                            } else {
                                long v = map.get(k, Long.MIN_VALUE);
                                if (v != Long.MIN_VALUE && (keyOf(v) != k || (v >>> 48) >= threads)) {
                                    throw new AssertionError("get(" + k + ") returned " + Long.toHexString(v)
                                            + ", a value written for key " + keyOf(v) + " (stale read of a reused node?)");
                                }
                            }
                        }
                        if (virtual) Thread.yield();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
            ts[t] = virtual ? Thread.ofVirtual().unstarted(body) : Thread.ofPlatform().daemon().unstarted(body);
        }
        this.threads = ts;
        for (Thread t : ts) t.start();
        long deadline = System.nanoTime() + (millis + graceMillis) * 1_000_000L;
        for (Thread t : ts) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0 || !t.join(java.time.Duration.ofMillis(left))) return false;
        }
        return true;
    }

    /** Waits for the worker threads after the structure's memory became unusable (see {@link #run}). */
    void awaitWorkers(long millis) throws InterruptedException {
        for (Thread t : threads) t.join(java.time.Duration.ofMillis(millis));
    }

    /** Violations of the history invariants (empty if consistent); rethrows a worker failure. */
    List<String> violations() {
        if (failure.get() != null) throw new AssertionError("worker failed", failure.get());
        List<String> out = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            long net = 0;
            for (int t = 0; t < inserts.length; t++) net += inserts[t][k] - removes[t][k];
            boolean present = map.contains(k);
            if (net != (present ? 1 : 0)) {
                out.add("key " + k + ": inserts - removes = " + net + " but present = " + present);
            }
            if (present) {
                long v = map.get(k, Long.MIN_VALUE);
                if (!valuesByKey.get(k).contains(v)) out.add("key " + k + " holds " + v + ", never inserted for it");
            }
        }
        if (map.size() != countPresent()) out.add("size() disagrees with contains()");
        if (map.incarnationMismatches() != 0) {
            out.add(map.incarnationMismatches() + " CASes acted on a node of another incarnation");
        }
        return out;
    }

    Throwable failure() {
        return failure.get();
    }

    private long countPresent() {
        long n = 0;
        for (int k = 0; k < keys; k++) if (map.contains(k)) n++;
        return n;
    }

    /** Keys 0..keys-1 present now. */
    Set<Long> present() {
        Set<Long> s = new HashSet<>();
        for (int k = 0; k < keys; k++) if (map.contains(k)) s.add((long) k);
        return s;
    }
}
