package dev.floe.lockfree;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The table of {@link Participant}s of one {@link Reclamation}: the paper's "Threads", with any
 * thread model. A participant is held by one thread at a time, in one of two ways.
 *
 * <h2>Borrowed participants</h2>
 * An operation claims a free participant with one CAS and returns it with a release store. It
 * first tries the participant the thread used last, then probes from a slot hashed from the
 * thread id, so a thread keeps its participant (and limbo list) warm. The table only grows (by a
 * copy that keeps every participant, published by CAS) when all participants are held.
 *
 * <h2>Owned participants</h2>
 * A platform thread may keep the participant it claimed instead of returning it: it becomes its
 * <em>owner</em>, and its later operations take it back from a thread-local with no CAS and no
 * store (the claim word simply stays set). That saves the two accesses of the claim word per
 * operation, one of them a locked instruction: about 4% of the CPU of an update on a hash table
 * with two threads, within the noise with one (docs/lockfree.md, "Owned participants"). Rules:
 * <ul>
 *   <li>At most {@link #maxOwned} participants are owned at once (the table's initial size), so
 *       the table stays bounded by that plus the peak number of borrowed operations, whatever the
 *       number of threads. A platform thread that finds the cap reached borrows, and tries again
 *       every {@link #OWN_RETRY} borrows. Virtual threads always borrow: there may be millions.</li>
 *   <li>While its owner lives, only the owner touches the participant's plain fields (limbo list,
 *       counters, clock); other threads read its hazard slots and warning as for any participant.
 *       The owner frees its limbo list itself, when an operation ends with it due or when it calls
 *       {@link Reclamation#reclaimIdle()}.</li>
 *   <li>Once the owner has ended, another thread may take the participant: it reads the owner,
 *       sees {@link Thread#isAlive()} false, and CASes the owner field from that thread (one winner).
 *       A thread's end happens-before the {@code isAlive} that detects it (JLS 17.4.4), so the taker
 *       sees every write of the owner. {@link #forEachIdle} (hence {@code reclaimIdle}) returns such
 *       participants to borrowing after one pass over their limbo lists; a platform thread trying
 *       to own one at the cap, or a borrower that would otherwise grow the table, takes one
 *       directly. So a dead thread's participant is reused, never lost, and its limbo list freed.</li>
 *   <li>A live owner may also give its participant up ({@link #disown}, through
 *       {@link Reclamation#detachCurrentThread()}): after a pass over its limbo list it clears
 *       the owner field, then the claim word, and the participant is borrowed like any free one.</li>
 * </ul>
 * No fence is involved: ownership never passes between two live threads (a live owner that
 * gives its participant up hands it on through the claim word, as a borrower does), so no
 * asymmetric barrier argument is needed (ARCHITECTURE.md, "Java mapping notes").
 *
 * <p>An OA-BIT reclaimer walks {@link #all()}: a participant appended after the reclaimer read
 * the table is first claimed after that read, hence after every node the reclaimer frees was
 * unlinked, so it cannot reach one.
 */
final class Participants {
    /** Borrows between two attempts of a platform thread to own a participant (see "Owned participants"). */
    static final int OWN_RETRY = 1024;

    private static final VarHandle TABLE;

    @SuppressWarnings("unused") // through TABLE
    private volatile Participant[] table;
    private final int limboCapacity;
    /** The most participants owned at once. */
    private final int maxOwned;
    /** Participants owned now (including those of ended owners not yet taken back). */
    private final AtomicInteger owned = new AtomicInteger();
    /**
     * What a thread knows about this table. One per thread and table, dropped with the thread.
     * The last-used index matters for borrowers: without it two threads whose ids hash to the
     * same home slot keep trading participants (each takes the other's when its own is busy), and
     * every operation then moves a participant's cache lines between cores. A thread can lose its
     * seat while it lives (the common {@code ForkJoinPool} clears its workers' thread-locals after
     * every task), so a new seat looks up the participant its thread may still own
     * ({@link #seatOfCurrentThread}).
     */
    private final ThreadLocal<Seat> seats = ThreadLocal.withInitial(this::seatOfCurrentThread);

    /** A thread's state for one table; only that thread reads or writes it. */
    private static final class Seat {
        final Thread thread = Thread.currentThread();
        final boolean mayOwn = !thread.isVirtual();
        /** The participant this thread owns, or null. */
        Participant owned;
        /** The index this thread borrowed last, tried first. */
        int lastUsed;
        /** Borrows left before the next attempt to own; the first borrow tries. */
        int untilOwnAttempt = 1;
    }

    /**
     * A new seat for the calling thread, with the participant it owns if it owns one. Until
     * 2026-11-24 a seat started empty, and a common-pool worker whose thread-locals were cleared
     * owned another participant in each task: one live thread soon held the whole cap, the limbo
     * lists of the participants it forgot were never freed while it lived ({@code reclaimIdle}
     * skips a live owner's), and {@link #disown} reported that it owned nothing. The scan reads
     * owner fields only; a thread finds itself only in the field it wrote itself (another thread
     * writes an owner field only to take a participant from an ended owner, or clears its own).
     * It runs once per seat, never on the operation path; virtual threads never own, so skip it.
     */
    private Seat seatOfCurrentThread() {
        Seat seat = new Seat();
        if (seat.mayOwn) {
            for (Participant p : table) {
                if (p.ownerSeenByOthers() == seat.thread) {
                    seat.owned = p;
                    break;
                }
            }
        }
        return seat;
    }

    Participants(int initial, int limboCapacity) {
        this.limboCapacity = limboCapacity;
        this.maxOwned = initial;
        Participant[] t = new Participant[initial];
        for (int i = 0; i < initial; i++) t[i] = new Participant(i, limboCapacity);
        this.table = t;
    }

    /** Holds a participant for one operation: the thread's own, or a borrowed one. */
    Participant acquire() {
        Seat seat = seats.get();
        Participant own = seat.owned;
        if (own != null) return own;
        Participant p = borrow(seat);
        if (seat.mayOwn && --seat.untilOwnAttempt == 0) {
            seat.untilOwnAttempt = OWN_RETRY;
            tryToOwn(seat, p);
        }
        return p;
    }

    /**
     * Ends the operation of {@link #acquire}: returns a borrowed participant, keeps an owned one.
     * The plain read of the owner is safe: an owner wrote it itself, and a borrower's null stays
     * null while it holds the participant (a takeover needs a non-null owner that has ended).
     */
    void release(Participant p) {
        if (p.owner == null) p.unclaim();
    }

    /** Every participant (a volatile read of the table). */
    Participant[] all() {
        return table;
    }

    /** Participants owned now (tests). */
    int ownedCount() {
        return owned.get();
    }

    /**
     * Runs {@code action} on every participant no operation holds: free ones (claimed around the
     * action), the caller's own (it is between operations), and those whose owner has ended
     * (taken back, then returned to borrowing). A participant a live thread owns or borrows is
     * skipped.
     */
    void forEachIdle(Consumer<Participant> action) {
        Thread me = Thread.currentThread();
        for (Participant p : table) {
            if (p.tryClaim()) {
                try {
                    action.accept(p);
                } finally {
                    p.unclaim();
                }
                continue;
            }
            Thread o = p.ownerSeenByOthers();
            if (o == me) {
                action.accept(p);
            } else if (o != null && !o.isAlive() && p.takeFrom(o, null)) {
                owned.decrementAndGet();
                try {
                    action.accept(p);
                } finally {
                    p.unclaim();
                }
            }
        }
    }

    /**
     * Gives up the calling thread's ownership, if it owns a participant: runs {@code action} on
     * that participant (the thread still holds it), then returns it to borrowing and forgets the
     * thread's seat. A later operation of the thread borrows, and may own again, as a new thread's
     * would. Returns whether the thread owned one.
     *
     * <p>Ordering: the owner field is cleared (release store) before the claim word (release
     * store), so a thread whose claim CAS then succeeds (acquire) sees both cleared and every
     * write {@code action} made. In between, another thread sees the participant claimed and
     * either its live owner or no owner, and leaves it alone either way.
     */
    boolean disown(Consumer<Participant> action) {
        Seat seat = seats.get();
        Participant p = seat.owned;
        seats.remove();
        if (p == null) return false;
        try {
            action.accept(p);
        } finally {
            p.own(null);
            owned.decrementAndGet();
            p.unclaim();
        }
        return true;
    }

    /** Claims a free participant, taking back an ended owner's or growing the table if none is. */
    private Participant borrow(Seat seat) {
        Participant[] t = table;
        int hint = seat.lastUsed;
        if (hint < t.length && t[hint].tryClaim()) return t[hint];
        int h = (int) ((seat.thread.threadId() * 0x9E37_79B9_7F4A_7C15L) >>> 33);
        while (true) {
            int n = t.length;
            int start = h % n;
            for (int k = 0; k < n; k++) {
                int i = start + k;
                if (i >= n) i -= n;
                if (t[i].tryClaim()) {
                    seat.lastUsed = i;
                    return t[i];
                }
            }
            Participant orphan = takeFromEndedOwner(null);
            if (orphan != null) {
                owned.decrementAndGet();
                seat.lastUsed = orphan.index;
                return orphan;
            }
            grow(t);
            t = table;
        }
    }

    /**
     * Makes the calling platform thread an owner: of {@code p}, which it holds for the current
     * operation, while fewer than {@link #maxOwned} are owned; else of an ended owner's
     * participant, used from its next operation on.
     */
    private void tryToOwn(Seat seat, Participant p) {
        int n;
        while ((n = owned.get()) < maxOwned) {
            if (owned.compareAndSet(n, n + 1)) {
                p.own(seat.thread);
                seat.owned = p;
                return;
            }
        }
        seat.owned = takeFromEndedOwner(seat.thread);
    }

    /**
     * Takes a participant whose owner has ended, for {@code taker} (null: to borrow it), or
     * returns null if there is none. The claim word of an owned participant stays set, so the
     * caller holds what it takes.
     */
    private Participant takeFromEndedOwner(Thread taker) {
        for (Participant p : table) {
            Thread o = p.ownerSeenByOthers();
            if (o != null && !o.isAlive() && p.takeFrom(o, taker)) return p;
        }
        return null;
    }

    private void grow(Participant[] seen) {
        Participant[] bigger = Arrays.copyOf(seen, seen.length * 2);
        for (int i = seen.length; i < bigger.length; i++) bigger[i] = new Participant(i, limboCapacity);
        TABLE.compareAndSet(this, seen, bigger); // losing the race is fine: someone grew it
    }

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(Participants.class, "table", Participant[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
