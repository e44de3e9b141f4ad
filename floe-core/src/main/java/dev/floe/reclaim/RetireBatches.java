package dev.floe.reclaim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Retire lists (Nova's release lists): references deleted but not yet safe to free wait here in
 * batches, and a full batch is handed to the scheme's {@link Drain} (Nova: advance the era, free
 * what no hazard slot holds). Shared by every reclamation scheme that defers frees.
 *
 * <h2>Protocol: lock-free append, helping built in</h2>
 * Each stripe has a current batch: an array of {@code capacity} entries and a reservation
 * counter. A thread adds to its home stripe ({@code HOME}: handed out round-robin at a thread's
 * first retire, so threads that retire at the same time get different stripes until there are
 * more of them than stripes). Any thread may add to any stripe; the home only keeps threads
 * apart, since two threads adding to one stripe contend on its counter and its entries' cache
 * lines (measured: two threads on 2 cores, 100–170 ns per add on a shared stripe against 11–14
 * ns on their own; hashing thread ids, as before, put two threads on one of 8 stripes one time in 8).
 * <ol>
 *   <li>{@link #add}: reserve an index with one atomic increment; if it is inside the batch,
 *       store the reference there (release store). The thread that reserves the last index
 *       seals the batch.</li>
 *   <li>Sealing: replace the stripe's current batch with an empty one by CAS; the thread whose
 *       CAS wins owns the full batch and drains it. A thread whose reservation falls past the end
 *       also tries to seal before retrying in the new batch: so if the thread that took the last
 *       index stalls, the next one to add drains the batch for it (the paper's helping).</li>
 *   <li>Draining reads every entry with an acquire load. An entry still 0 belongs to a thread
 *       that reserved its index but has not stored yet (it stalled between the two steps); the
 *       batch goes to a pending queue and later drains pick those entries up once they appear.</li>
 *   <li>A drain may add again (re-retire what it cannot free yet). A batch that such an add
 *       seals is deferred to the next top-level drain instead of being drained inside this one,
 *       so the stack never grows and no call spins while references stay held.</li>
 * </ol>
 * So a thread that stalls anywhere holds back at most the one reference it was adding (Nova's
 * robustness bound: a stalled writer holds one slice through its hazard slot, a stalled deleter
 * the one slice it was retiring), and no batch waits for a particular thread to come back.
 * Batches that drained completely are zeroed and kept as their stripe's spare, so steady-state
 * retiring allocates only the small {@code Batch} object of each seal (16–24 bytes per
 * {@code capacity} retires): the seal's CAS needs a batch identity that was never current
 * before, or a late adder's stale reference could match a reused batch (ABA).
 *
 * <h2>drainAll waits for other threads' drains</h2>
 * A batch another thread sealed is out of every stripe, so {@link #drainAll} cannot see it while
 * that thread drains it; its references reach the drain (and their memory the allocator) only
 * when that drain ends. Callers of {@code drainAll} run out of room and ask once more (ids,
 * budget), or promise that everything retired before the call has gone back, so
 * {@code drainAll} then waits until no seal or drain runs on another thread
 * ({@link #sealsRunning}: counted from before the seal's CAS, so a batch sealed before
 * {@code drainAll} looked at its stripe is counted until drained), for at most
 * {@link #SETTLE_NANOS}: a thread descheduled in its drain delays the caller by that much, not
 * for ever. (Before, an allocation of handles from several threads saw "handle table full: 64
 * handles live" with 30 live, in up to 26,906 of its allocations in 2.5 s.)
 */
public final class RetireBatches {
    /** What a scheme does with references that left a batch. */
    @FunctionalInterface
    public interface Drain {
        /**
         * Processes {@code refs[0..count)}; the array is the caller's for the duration of the call.
         * References that are not yet safe to free may be {@linkplain #add added} again.
         */
        void drain(long[] refs, int count);
    }

    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle RESERVED;
    /** Marks an entry of a pending batch that was already handed to the drain. */
    private static final long TAKEN = Long.MIN_VALUE;

    private static final class Batch {
        final long[] entries;
        @SuppressWarnings("unused") // through RESERVED
        volatile int reserved;

        Batch(long[] entries) {
            this.entries = entries;
        }
    }

    /** A batch this thread sealed and must drain: {@code entries[0..reserved)} of stripe {@code stripe}. */
    private record Sealed(int stripe, long[] entries, int reserved) {}

    /** Whether a thread is inside a drain; one per thread and instance, set up at its first drain. */
    private static final class DrainFlag {
        boolean draining;
    }

    /**
     * The current thread's flag: a seal made while it is set is deferred. (A mutable flag rather
     * than {@code ThreadLocal.set/remove} per drain, which allocated a map entry every time.)
     */
    private final ThreadLocal<DrainFlag> drainFlag = ThreadLocal.withInitial(DrainFlag::new);

    /** A thread's home stripe, before masking: the {@code n}th thread to retire gets {@code n}. */
    private record Home(int index) {}

    private static final AtomicInteger NEXT_HOME = new AtomicInteger();

    /**
     * Every thread's home stripe, one for all instances (so a thread that retires into many maps
     * holds one entry, not one per map). Round-robin rather than a hash of the thread id: threads
     * that start retiring one after another never share a stripe while there are enough stripes.
     */
    private static final ThreadLocal<Home> HOME = ThreadLocal.withInitial(() -> new Home(NEXT_HOME.getAndIncrement()));
    /** Batches sealed inside a drain, for the next top-level drain. */
    private final ConcurrentLinkedQueue<Sealed> deferred = new ConcurrentLinkedQueue<>();

    /** Entries {@code [from, to)} of a drained batch that were not yet written. */
    private record Pending(long[] entries, int from, int to) {}

    private final int capacity;
    private final int mask;
    private final AtomicReferenceArray<Batch> current;
    private final AtomicReferenceArray<long[]> spare;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final Drain drain;
    /** Seals (and the drains they start) and top-level drains running now, on any thread. */
    private final AtomicInteger sealsRunning = new AtomicInteger();
    /** Longest {@link #drainAll} waits for other threads' drains: 100 ms. */
    static final long SETTLE_NANOS = 100_000_000L;

    /**
     * @param capacity references per batch (Nova's N: the era advances once per batch)
     * @param stripes  a power of two
     */
    public RetireBatches(int capacity, int stripes, Drain drain) {
        if (capacity <= 0) throw new IllegalArgumentException("batch capacity: " + capacity);
        if (Integer.bitCount(stripes) != 1) throw new IllegalArgumentException("stripes: power of two");
        this.capacity = capacity;
        this.mask = stripes - 1;
        this.drain = drain;
        this.current = new AtomicReferenceArray<>(stripes);
        this.spare = new AtomicReferenceArray<>(stripes);
        for (int i = 0; i < stripes; i++) current.set(i, new Batch(new long[capacity]));
    }

    /** Four stripes per core, at least 8 (as the allocator's caches). */
    public static int defaultStripes() {
        int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 4 - 1)) << 1;
        return Math.min(64, Math.max(8, n));
    }

    /** Retires {@code ref} (non-zero); may drain a full batch on the calling thread. */
    public void add(long ref) {
        if (ref == 0) throw new IllegalArgumentException("retired reference must be non-zero");
        int s = HOME.get().index & mask;
        while (true) {
            Batch b = current.get(s);
            int i = (int) RESERVED.getAndAdd(b, 1);
            if (i < capacity) {
                // release: pairs with the drainer's acquire of the entry, so the retire's delete
                // (Nova: the deleted-bit CAS) happens-before the reference is freed
                ENTRY.setRelease(b.entries, i, ref);
                if (i == capacity - 1) seal(s, b);
                return;
            }
            seal(s, b); // full: help whoever took the last index
        }
    }

    /**
     * Seals and drains every stripe's batch now, full or not, retries pending entries, and waits
     * (up to {@link #SETTLE_NANOS}) for the drains other threads are running: afterwards every
     * reference retired before the call has been through the drain, except those whose adding
     * thread has not finished storing (at most one per such thread) and those of a drain still
     * running on another thread after the wait. Called inside a drain, it does not wait.
     */
    public void drainAll() {
        for (int s = 0; s <= mask; s++) {
            Batch b = current.get(s);
            if ((int) RESERVED.getVolatile(b) > 0) seal(s, b);
        }
        drainSealed(-1, null, 0); // deferred batches and pending entries (deferred itself when inside a drain)
        if (drainFlag.get().draining) return;
        long deadline = System.nanoTime() + SETTLE_NANOS;
        for (int spins = 0; sealsRunning.get() > 0 && System.nanoTime() - deadline < 0; spins++) Backoff.step(spins);
        if (!deferred.isEmpty()) drainSealed(-1, null, 0); // batches those drains sealed inside themselves
    }

    /** References waiting in batches and in the pending queue (approximate while adds run). */
    public long waiting() {
        long n = 0;
        for (int s = 0; s <= mask; s++) n += Math.min(capacity, (int) RESERVED.getVolatile(current.get(s)));
        for (Pending p : pending) n += p.to - p.from;
        for (Sealed d : deferred) n += d.reserved;
        return n;
    }

    private void seal(int s, Batch full) {
        long[] fresh = spare.getAndSet(s, null);
        if (fresh == null) fresh = new long[capacity];
        sealsRunning.incrementAndGet(); // before the CAS: see "drainAll waits for other threads' drains"
        try {
            if (current.compareAndSet(s, full, new Batch(fresh))) {
                int reserved = Math.min(capacity, (int) RESERVED.getAndAdd(full, capacity)); // closes the batch
                drainSealed(s, full.entries, reserved);
            } else if (!spare.compareAndSet(s, null, fresh)) {
                // another spare arrived meanwhile; let this one go
            }
        } finally {
            sealsRunning.decrementAndGet();
        }
    }

    /**
     * Drains a batch this thread sealed. A drain may {@link #add} (a scheme re-retiring what it
     * cannot free yet), and that add may seal another batch: such a nested seal is not drained
     * inside the drain (that recursed until the stack overflowed, and draining it in a loop here
     * would spin for as long as the references stay held) but deferred to the next top-level
     * seal or {@link #drainAll}, on any thread. Each top-level call drains its own batch
     * ({@code entries[0..reserved)} of stripe {@code stripe}, or none if {@code entries} is null)
     * plus the deferred batches present when it started, so every call does bounded work.
     */
    private void drainSealed(int stripe, long[] entries, int reserved) {
        DrainFlag flag = drainFlag.get();
        if (flag.draining) {
            if (entries != null) deferred.add(new Sealed(stripe, entries, reserved));
            return;
        }
        flag.draining = true;
        if (entries == null) sealsRunning.incrementAndGet(); // drainAll's: a deferred batch it took is counted too
        try {
            if (entries != null) drainBatch(stripe, entries, reserved);
            for (int k = deferred.size(); k > 0; k--) {
                Sealed b = deferred.poll();
                if (b == null) break;
                drainBatch(b.stripe, b.entries, b.reserved);
            }
            retryPending();
        } finally {
            flag.draining = false;
            if (entries == null) sealsRunning.decrementAndGet();
        }
    }

    /** Drains {@code entries[0..reserved)}; unwritten entries go to the pending queue. */
    private void drainBatch(int s, long[] entries, int reserved) {
        int firstMissing = -1;
        for (int i = 0; i < reserved; i++) {
            if ((long) ENTRY.getAcquire(entries, i) == 0 && !awaitEntry(entries, i)) {
                firstMissing = i;
                break;
            }
        }
        if (firstMissing < 0) {
            drain.drain(entries, reserved);
            // plain: no adder can write here any more (every reserved index was written, later
            // ones are past capacity); the spare CAS and the seal's CAS publish the zeros
            Arrays.fill(entries, 0, reserved, 0L);
            spare.compareAndSet(s, null, entries);
            return;
        }
        // A thread reserved an index and has not stored: never reuse this array; hand over
        // what is written, remember the rest.
        List<Long> missing = new ArrayList<>();
        long[] ready = new long[reserved];
        int n = 0;
        for (int i = 0; i < reserved; i++) {
            long r = (long) ENTRY.getAcquire(entries, i);
            if (r != 0) {
                ready[n++] = r;
                entries[i] = TAKEN; // only index i's own adder writes here, and it already has
            } else {
                missing.add((long) i);
            }
        }
        if (missing.isEmpty()) { // the late entries landed after the spin gave up: all handed over
            drain.drain(ready, n);
            return;
        }
        pending.add(new Pending(entries, Math.toIntExact(missing.getFirst()),
                Math.toIntExact(missing.getLast()) + 1));
        drain.drain(ready, n);
    }

    /** Spins briefly for an entry whose index was reserved a moment ago. */
    private static boolean awaitEntry(long[] entries, int i) {
        for (int spin = 0; spin < 1_000; spin++) {
            Thread.onSpinWait();
            if ((long) ENTRY.getAcquire(entries, i) != 0) return true;
        }
        return false;
    }

    private void retryPending() {
        for (int k = pending.size(); k > 0; k--) {
            Pending p = pending.poll();
            if (p == null) return;
            long[] ready = new long[p.to - p.from];
            int n = 0;
            int from = -1;
            int to = -1;
            for (int i = p.from; i < p.to; i++) {
                long r = (long) ENTRY.getAcquire(p.entries, i);
                if (r == 0) {
                    if (from < 0) from = i;
                    to = i + 1;
                } else if (r != TAKEN) {
                    ready[n++] = r;
                    p.entries[i] = TAKEN; // this array is never reused
                }
            }
            if (from >= 0) pending.add(new Pending(p.entries, from, to));
            if (n > 0) drain.drain(ready, n);
        }
    }

    static {
        try {
            RESERVED = MethodHandles.lookup().findVarHandle(Batch.class, "reserved", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
