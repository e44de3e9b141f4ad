package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * Long keys in {@link OakCodecs#LONG}'s order that stop one thread at chosen comparisons until
 * the test lets it go on: the hand-off of the map's deterministic race tests. A test arms it with
 * the thread and a condition on the two keys compared ({@link #run}); whenever that thread
 * compares two keys that meet the condition, it waits inside the comparator while the test does
 * what the race needs (another thread's insert, a round of reads), then resumes. No timing is
 * involved.
 *
 * <p>Options: without {@code prefixes} every comparison reaches the comparator (the map's
 * order prefixes would settle most of them first); without {@code stopOnStoredPairs} only
 * comparisons of a key object (the operation's own key) with a stored key stop, not those of two
 * stored keys (rebalances, the cursor's bounds).
 */
final class StoppingComparator implements OakComparator<Long> {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    /** When the armed thread stops: comparing {@code a} (its own side) with {@code b}. */
    @FunctionalInterface
    interface When {
        boolean stopAt(long a, long b);
    }

    /** What the test does while the armed thread is stopped at a comparison with {@code other}. */
    @FunctionalInterface
    interface WhileStopped {
        void at(long other) throws Exception;
    }

    private final boolean prefixes;
    private final boolean stopOnStoredPairs;
    private volatile Thread armed;
    private volatile When when = (a, b) -> false;
    private final SynchronousQueue<Long> stopped = new SynchronousQueue<>();
    private final SynchronousQueue<Boolean> resume = new SynchronousQueue<>();

    StoppingComparator(boolean prefixes, boolean stopOnStoredPairs) {
        this.prefixes = prefixes;
        this.stopOnStoredPairs = stopOnStoredPairs;
    }

    /**
     * Starts {@code thread} armed with {@code when}; each time it stops, runs {@code whileStopped}
     * and resumes it (also if that throws); returns once the thread has ended, disarmed.
     */
    void run(Thread thread, When when, WhileStopped whileStopped) throws Exception {
        this.when = when;
        this.armed = thread;
        try {
            thread.start();
            while (true) {
                Long other = stopped.poll(50, TimeUnit.MILLISECONDS);
                if (other == null) {
                    if (thread.isAlive()) continue;
                    other = stopped.poll(); // it may have stopped just before the check
                    if (other == null) break;
                }
                try {
                    whileStopped.at(other);
                } finally {
                    resume.put(Boolean.TRUE);
                }
            }
            thread.join();
        } finally {
            disarm();
        }
    }

    /** Stops no thread from now on (a test that gives up must let the stopped thread finish). */
    void disarm() {
        when = (a, b) -> false;
    }

    private void maybeStop(long a, long b) {
        if (Thread.currentThread() == armed && when.stopAt(a, b)) {
            try {
                stopped.put(b);
                resume.take();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public int compareKeys(Long a, Long b) {
        maybeStop(a, b);
        return Long.compare(a, b);
    }

    @Override
    public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
        long x = a.get(L, 0), y = b.get(L, 0);
        if (stopOnStoredPairs) maybeStop(x, y);
        return Long.compare(x, y);
    }

    @Override
    public int compareKeyAndSerializedKey(Long key, MemorySegment serialized) {
        long b = serialized.get(L, 0);
        maybeStop(key, b);
        return Long.compare(key, b);
    }

    @Override
    public long prefixOf(Long key) {
        return prefixes ? OakCodecs.LONG.prefixOf(key) : 0;
    }

    @Override
    public long prefixOfSerialized(MemorySegment serialized) {
        return prefixes ? OakCodecs.LONG.prefixOfSerialized(serialized) : 0;
    }
}
