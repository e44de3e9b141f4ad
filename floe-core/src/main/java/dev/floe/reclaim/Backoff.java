package dev.floe.reclaim;

import java.util.concurrent.locks.LockSupport;

/**
 * One step of a wait for another thread (a value's writer, a chunk's publishers, another
 * thread's drain of a retire batch): spin, then yield, then park for 1 us growing to 1 ms.
 * Parking matters on virtual threads: a yield puts the waiter straight back on its carrier's
 * queue, and waiters that only yield could keep both carriers busy while the threads they wait
 * for made almost no progress (a map compute scenario on 10 virtual threads over 2 carriers
 * stalled past 15 s in about 3% of its runs; none in 240 runs with parking). An interrupted
 * thread's park returns at once, so it keeps yielding. A parked virtual thread is woken only by
 * its timeout, never by the thread it waits for, and the JDK queues it then on the scheduler's
 * shared queue, which a carrier reads only when its own queue is empty: other virtual threads
 * that yield in endless loops, two or more per carrier, keep that queue full and can hold the
 * waiter off for seconds (docs/map.md; the map's stress tests park between steps for that).
 */
public final class Backoff {
    private Backoff() {}

    /** Waits one step; {@code spins} is the number of steps taken before in this wait. */
    public static void step(int spins) {
        if (spins < 64) Thread.onSpinWait();
        else if (spins < 128 || Thread.currentThread().isInterrupted()) Thread.yield();
        else LockSupport.parkNanos(1L << Math.min(spins - 118, 20));
    }
}
