package dev.floe.lockfree;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** A cache line of padding before a participant's fields (see {@link Participant}, "Padding"). */
abstract class ParticipantPadBefore {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The fields of a {@link Participant}, between its two cache lines of padding. */
abstract class ParticipantFields extends ParticipantPadBefore {
    /** Hazard pointers a modifying step publishes at most: predecessor, current, successor. */
    static final int MAX_HAZARDS = 3;
    /** Longs of padding at each end of {@link #hazards}: one cache line. */
    static final int HAZARD_PAD = 8;

    /** Position in {@link Participants}' table. */
    final int index;
    /** 1 while a thread borrows or owns this participant (CAS 0 → 1 claims, release store of 0 returns). */
    @SuppressWarnings("unused") // through Participant.BUSY
    volatile int busy;
    /** OA-BIT's warning bit: set (1) by any reclaimer, cleared by the holder when it restarts. */
    @SuppressWarnings("unused") // through Participant.WARNING
    volatile int warning;

    /**
     * The platform thread that keeps this participant between its operations, or null while it
     * is borrowed per operation or free (see {@link Participants}, "Owned participants"). Set by
     * the thread itself while it holds the claim; replaced by CAS only once that thread has
     * ended.
     */
    Thread owner;
    /** OA-VER's LocalClock: the global clock value this participant last acknowledged. */
    long localClock;
    /** OA-VER's LastRetireTime: the clock read after the latest retire. */
    long lastRetireTime;
    /**
     * OA's hazard pointers: this participant's fixed slots (0 = empty) at
     * {@code [HAZARD_PAD, HAZARD_PAD + MAX_HAZARDS)}, written only by the holder and scanned by
     * reclaimers; a cache line of padding at each end keeps other objects off their line.
     */
    final long[] hazards = new long[HAZARD_PAD + MAX_HAZARDS + HAZARD_PAD];
    /** Whether any hazard slot may be non-zero (holder only: skips clearing when none was set). */
    boolean hazardsSet;
    /** EBR: the hazard slot announcing this operation's epoch, or -1. */
    int epochSlot = -1;
    /** Nodes retired through this participant and not yet freed. */
    final LimboList limbo;

    /** Counters, summed by {@link Reclamation#stats()} (exact once the threads have stopped). */
    long restarts;
    long warningsSent;
    long reclaims;
    long freed;
    long retired;

    ParticipantFields(int index, int limboCapacity) {
        this.index = index;
        this.limbo = new LimboList(limboCapacity);
    }
}

/** A cache line of padding after a participant's fields. */
abstract class ParticipantPadAfter extends ParticipantFields {
    long p10, p11, p12, p13, p14, p15, p16, p17;

    ParticipantPadAfter(int index, int limboCapacity) {
        super(index, limboCapacity);
    }
}

/**
 * The per-participant state of a {@link Reclamation}: the paper's per-thread warning bit, local
 * clock, hazard pointers and limbo list, held by whichever thread runs an operation with it.
 *
 * <p>A participant is either kept by one platform thread between its operations (it
 * <em>owns</em> it) or borrowed from {@link Participants} for one operation and given back at its
 * end; owners are capped, so any number of platform or virtual threads share a bounded table
 * (ARCHITECTURE.md invariant 7). The borrow is a CAS (acquire) and the return a release store; an
 * owned participant passes to another thread only after its owner ended. Either way the plain
 * fields ({@link ParticipantFields}) move between threads with a happens-before edge and are only
 * ever touched by the current holder. Only {@code warning} is written by other threads (an OA-BIT
 * reclaimer), and only the hazard slots, the claim word and the owner are read by them; these are
 * accessed through VarHandles.
 *
 * <h2>Padding</h2>
 * The holder writes the local clock and the counters on every operation (a borrower also the
 * claim word) and the hazard slots on every modifying step. The participants of a table are small objects created
 * together, and a garbage collection copies them next to each other in table order, so two
 * threads on two participants would write the same cache lines. The fields therefore sit between
 * two cache lines of padding (superclass fields are laid out first: {@link ParticipantPadBefore},
 * {@link ParticipantFields}, {@link ParticipantPadAfter}), and the hazard slots sit inside an
 * array with a cache line of padding at each end.
 */
final class Participant extends ParticipantPadAfter {
    private static final VarHandle BUSY;
    private static final VarHandle WARNING;
    private static final VarHandle OWNER;
    private static final VarHandle HAZARD = MethodHandles.arrayElementVarHandle(long[].class);

    Participant(int index, int limboCapacity) {
        super(index, limboCapacity);
    }

    /**
     * Publishes up to three hazard pointers (0 for none) with opaque stores and one full fence
     * (StoreLoad): they are visible before the caller's next load, the warning check.
     */
    void publishHazards(long a, long b, long c) {
        HAZARD.setOpaque(hazards, HAZARD_PAD, a);
        HAZARD.setOpaque(hazards, HAZARD_PAD + 1, b);
        HAZARD.setOpaque(hazards, HAZARD_PAD + 2, c);
        hazardsSet = true;
        VarHandle.fullFence();
    }

    /** Clears the hazard pointers with release stores (after the protected CAS). */
    void clearHazards() {
        if (!hazardsSet) return;
        HAZARD.setRelease(hazards, HAZARD_PAD, 0L);
        HAZARD.setRelease(hazards, HAZARD_PAD + 1, 0L);
        HAZARD.setRelease(hazards, HAZARD_PAD + 2, 0L);
        hazardsSet = false;
    }

    /** Adds this participant's non-zero hazard pointers to {@code out} from {@code n}; returns the new count. */
    int collectHazards(long[] out, int n) {
        for (int i = HAZARD_PAD; i < HAZARD_PAD + MAX_HAZARDS; i++) {
            long h = (long) HAZARD.getVolatile(hazards, i);
            if (h != 0) out[n++] = h;
        }
        return n;
    }

    boolean tryClaim() {
        return (int) BUSY.getOpaque(this) == 0 && BUSY.compareAndSet(this, 0, 1); // opaque: a hint; the CAS acquires
    }

    void unclaim() {
        BUSY.setRelease(this, 0); // StoreStore + LoadStore: our plain writes precede the return
    }

    /**
     * Makes {@code thread}, the caller, which holds the claim, this participant's owner (null:
     * the owner gives it up, {@link Participants#disown}). A release
     * store, though no reader relies on more than the claim: another thread acts on an owned
     * participant only after it saw the owner ended, and a thread's end happens-before the
     * {@link Thread#isAlive()} that detects it (JLS 17.4.4), so every write of the owner is visible.
     */
    void own(Thread thread) {
        OWNER.setRelease(this, thread);
    }

    /** The owner, read by another thread (acquire), or null. */
    Thread ownerSeenByOthers() {
        return (Thread) OWNER.getAcquire(this);
    }

    /**
     * Takes this participant from {@code deadOwner}, which the caller saw ended
     * ({@link Thread#isAlive()} false), for {@code taker} (null: returned to borrowing); false if
     * another thread took it first. The claim word stays set, so the winner holds the participant.
     */
    boolean takeFrom(Thread deadOwner, Thread taker) {
        return OWNER.compareAndSet(this, deadOwner, taker);
    }

    /** Sets the warning bit (release store; the reclaimer fences before it scans hazards). */
    void warn() {
        WARNING.setRelease(this, 1);
    }

    /**
     * Whether the warning bit is set. The caller's earlier loads are ordered before this one by a
     * {@code loadLoadFence} (see {@link OaBitReclamation#warned}).
     */
    boolean isWarned() {
        return (int) WARNING.getAcquire(this) != 0;
    }

    /**
     * Clears the warning bit with a volatile store: a full StoreLoad barrier, so the clear is
     * visible before any load of the restarted traversal. A warning sent after it is seen by the
     * next check; one sent before it concerns only nodes unlinked before this point, which a
     * traversal starting afresh from the head cannot reach.
     */
    void clearWarning() {
        WARNING.setVolatile(this, 0);
    }

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BUSY = l.findVarHandle(ParticipantFields.class, "busy", int.class);
            WARNING = l.findVarHandle(ParticipantFields.class, "warning", int.class);
            OWNER = l.findVarHandle(ParticipantFields.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
