package dev.floe.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The registered {@link Participant}s of one {@link ManualHeap} (Snowflake's set of threads whose
 * local epochs the global epoch waits for, paper section 4.1): a table of records scanned by
 * every epoch advance, and an index from thread to record for joins.
 *
 * <h2>Layout and costs</h2>
 * <ul>
 *   <li><b>Scan</b> ({@link #table()} and {@link #at}): a plain array of records with
 *       {@code null} for a free slot, read with volatile loads and no iterator, so an advance
 *       allocates nothing.</li>
 *   <li><b>Join</b> ({@link #find}, then {@link #add}): one hash lookup by thread identity, then,
 *       for a new thread, one slot write under a lock that only joins and removals take. A thread
 *       joins once per heap, except that a thread whose thread-locals were cleared (the common
 *       {@code ForkJoinPool}'s workers, after every task) finds its record again through the
 *       index. Until 2026-11-24 the table was a copy-on-write array: each join copied it and
 *       scanned it for the thread's record, so {@code n} threads that each defend once cost
 *       {@code O(n^2)}, and concurrent joins retried their CAS over each other's copies.</li>
 *   <li><b>Records of ended threads</b> are handed to the heap's cleanup (retire the record,
 *       clear its slots) and dropped by the advance that finds them, or, with no advance (a
 *       workload that only defends), by the join that finds the table full: it checks every
 *       record, then doubles the table if more than half of it is still in use. A full check
 *       costs {@code O(capacity)} and leaves at least {@code capacity / 2} free slots, so joins
 *       pay {@code O(1)} amortized and the table holds at most about four times the peak
 *       number of live participants.</li>
 * </ul>
 *
 * <h2>Why an advance may miss a record that is being added</h2>
 * A record is published by a volatile store into its slot, and the advance reads slots with
 * volatile loads, after its volatile read of the global epoch {@code g}. All of these are
 * synchronization actions, totally ordered consistently with program order. If the advance's load
 * of the slot does not see the record, it precedes the store in that order, and so does its read
 * of {@code g}; the joining thread reads the global epoch only after the store (its first defend
 * rejoins at the epoch it reads then), so it reads {@code g} or later, and its state never lags
 * the epoch this advance moves past. A new record is {@link Participant#EJECTED} until then,
 * which the advance ignores anyway. So a record the scan misses could not have held the epoch
 * back, and {@link Shield}'s safety argument is unchanged.
 *
 * <p>A scan holding a table that was replaced (grown) may see a record that was dropped since; a
 * dropped record is {@link Participant#RETIRED} (only ended threads' records are dropped), which
 * the advance skips, and {@link #remove} of it again is a no-op.
 */
final class ParticipantRegistry {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Participant[].class);
    private static final int INITIAL_CAPACITY = 8;

    private final ConcurrentHashMap<Thread, Participant> byThread = new ConcurrentHashMap<>();
    /** Hands the record of an ended thread to the heap (retire it, clear its slots), then {@link #remove}s it. */
    private final Consumer<Participant> retireEnded;
    /** Guards every write to {@link #table}, its slots, {@link #free} and {@link Participant#registrySlot}. */
    private final Object lock = new Object();
    /** Slots of records, {@code null} when free; replaced by a copy twice the size when it grows. */
    private volatile Participant[] table = new Participant[INITIAL_CAPACITY];
    /** Free slot indexes of {@link #table} ({@code free[0..freeCount)}), under {@link #lock}. */
    private int[] free = descending(INITIAL_CAPACITY, 0);
    private int freeCount = INITIAL_CAPACITY;
    /** Records registered; written under {@link #lock}. */
    private volatile int size;

    /** @param retireEnded retires the record of an ended thread and calls {@link #remove} for it */
    ParticipantRegistry(Consumer<Participant> retireEnded) {
        this.retireEnded = retireEnded;
    }

    /** The calling thread's record if it has one (it may have lost its thread-local reference). */
    Participant find(Thread thread) {
        return byThread.get(thread);
    }

    /** Registers {@code p}, a new record of the calling thread, which has none yet. */
    Participant add(Participant p) {
        synchronized (lock) {
            if (freeCount == 0) {
                dropEnded();
                if (size > table.length / 2) grow();
            }
            int slot = free[--freeCount];
            p.registrySlot(slot);
            byThread.put(p.thread(), p);
            SLOT.setVolatile(table, slot, p); // publication: see the class comment
            size++;
        }
        return p;
    }

    /** Drops {@code p} (a retired record); a no-op if it was dropped already. */
    void remove(Participant p) {
        synchronized (lock) {
            int slot = p.registrySlot();
            Participant[] t = table;
            if (slot < 0 || t[slot] != p) return;
            SLOT.setVolatile(t, slot, (Participant) null);
            p.registrySlot(-1);
            byThread.remove(p.thread(), p);
            free[freeCount++] = slot;
            size--;
        }
    }

    /** The current table, for a scan with {@link #at}; slots may be {@code null}. */
    Participant[] table() {
        return table;
    }

    /** Slot {@code i} of a table returned by {@link #table()} (volatile load). */
    static Participant at(Participant[] table, int i) {
        return (Participant) SLOT.getVolatile(table, i);
    }

    /** Records registered, including those of threads that ended since the last check. */
    int size() {
        return size;
    }

    /** Under {@link #lock}: hands every record of an ended thread to {@link #retireEnded}. */
    private void dropEnded() {
        Participant[] t = table;
        for (Participant p : t) {
            // termination happens-before isAlive() returning false; the callback calls remove
            // (the lock is reentrant), which frees the slot
            if (p != null && !p.thread().isAlive()) retireEnded.accept(p);
        }
    }

    /** Under {@link #lock}: doubles the table; the new half is free. */
    private void grow() {
        Participant[] t = table;
        int n = t.length;
        int[] f = Arrays.copyOf(free, 2 * n);
        int[] added = descending(2 * n, n);
        // the new slots go below the existing free ones, which are taken first
        System.arraycopy(f, 0, f, added.length, freeCount);
        System.arraycopy(added, 0, f, 0, added.length);
        free = f;
        freeCount += added.length;
        table = Arrays.copyOf(t, 2 * n); // volatile store after the copy: scans see every record
    }

    /** The indexes {@code to - 1} down to {@code from}, so that the lowest index is taken first. */
    private static int[] descending(int to, int from) {
        int[] a = new int[to - from];
        for (int i = 0; i < a.length; i++) a[i] = to - 1 - i;
        return a;
    }
}
