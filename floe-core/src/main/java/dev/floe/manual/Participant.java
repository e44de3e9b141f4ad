package dev.floe.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * One thread's membership in the epoch protocol of a {@link ManualHeap}: Snowflake's per-thread
 * <em>local epoch</em> (paper, section 4.1) and the hazard slots of the thread's open shields.
 *
 * <h2>The state word (one {@code long}, written by CAS)</h2>
 * <pre>
 *   state >= 1       the local epoch: the global epoch this thread saw at its last shield
 *                    operation; the global epoch may move one past it and no further
 *   state == EJECTED not taking part: ignored by the consensus until the thread's next
 *                    defend {@linkplain #rejoin rejoins} (also the state of a new record)
 *   state == RETIRED the thread ended; the record is dropped and its slots cleared (terminal)
 * </pre>
 * The owning thread writes its epoch with a CAS from the value it last saw ({@link #commit});
 * a reclaimer {@linkplain #eject ejects} with a CAS to {@code EJECTED}. So an ejection and a
 * shield's commit are totally ordered on this word, and exactly one of them succeeds: that
 * atomicity is what the paper obtains by write-protecting the stalled thread's shield page.
 *
 * <p>The held-slot list is touched only by the owning thread; a reclaimer reads it only after
 * {@link Thread#isAlive()} returned false (thread termination happens-before that result). Its
 * length is also published with a release store ({@link #openShields()}), as a hint for the
 * ejection policy: a reclaimer may eject any record at any time without harming safety (the
 * next commit fails and the defend replays), so a stale hint costs at most one rejoin.
 */
final class Participant {
    /** Ejected (or joining): the consensus ignores this record. */
    static final long EJECTED = -1;
    /** The thread ended and the record was released (terminal). */
    static final long RETIRED = -2;

    private static final VarHandle STATE;
    private static final VarHandle HELD_COUNT;

    @SuppressWarnings("unused") // through STATE
    private volatile long state = EJECTED;
    private final Thread thread;
    /** Slots of this thread's open shields ({@code held[0..heldCount)}); owner thread only. */
    private int[] held = new int[4];
    @SuppressWarnings("unused") // written through HELD_COUNT (release), read plainly by the owner
    private int heldCount;
    /** This record's slot in its {@link ParticipantRegistry}, -1 when not registered; under the registry's lock. */
    private int registrySlot = -1;

    Participant(Thread thread) {
        this.thread = thread;
    }

    Thread thread() {
        return thread;
    }

    int registrySlot() {
        return registrySlot;
    }

    void registrySlot(int slot) {
        registrySlot = slot;
    }

    /** The state word (volatile read). */
    long state() {
        return state;
    }

    /**
     * The owning thread moves from the state it read, {@code seen}, to epoch {@code epoch}
     * (CAS, a full fence). Fails only if the record was ejected since {@code seen} was read.
     */
    boolean commit(long seen, long epoch) {
        return STATE.compareAndSet(this, seen, epoch);
    }

    /** The owning thread rejoins at {@code epoch} after an ejection (paper: {@code Rejoin()}). */
    boolean rejoin(long epoch) {
        return STATE.compareAndSet(this, EJECTED, epoch);
    }

    /** A reclaimer ejects the record it saw at epoch {@code seen}; false if it moved meanwhile. */
    boolean eject(long seen) {
        return seen >= 1 && STATE.compareAndSet(this, seen, EJECTED);
    }

    /** Marks the record of an ended thread retired; true for the one caller that did it. */
    boolean retire() {
        while (true) {
            long s = state;
            if (s == RETIRED) return false;
            if (STATE.compareAndSet(this, s, RETIRED)) return true;
        }
    }

    void hold(int slot) {
        int n = heldCount;
        if (n == held.length) held = Arrays.copyOf(held, n * 2);
        held[n] = slot;
        HELD_COUNT.setRelease(this, n + 1);
    }

    void release(int slot) {
        int n = heldCount;
        for (int i = n - 1; i >= 0; i--) {
            if (held[i] == slot) {
                held[i] = held[n - 1];
                HELD_COUNT.setRelease(this, n - 1);
                return;
            }
        }
        throw new IllegalStateException("slot " + slot + " is not held by this participant");
    }

    /** How many shields the thread has open (acquire load; a hint when read by a reclaimer). */
    int openShields() {
        return (int) HELD_COUNT.getAcquire(this);
    }

    /** The slots of the open shields (for the cleanup of an ended thread). */
    int[] heldSlots() {
        return Arrays.copyOf(held, heldCount);
    }

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Participant.class, "state", long.class);
            HELD_COUNT = MethodHandles.lookup().findVarHandle(Participant.class, "heldCount", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
