package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * OA-VER (the paper's Algorithm 2): warnings are increments of one global monotonic clock
 * ({@link #clock}); a participant is warned when the clock differs from the value it last
 * acknowledged ({@link Participant#localClock}). One increment warns everyone at once, and a
 * reclaimer whose nodes were all retired before some increment — by anyone — needs to send no
 * warning of its own (piggy-backing).
 *
 * <h2>Retire times</h2>
 * The paper stamps LastRetireTime with the thread's LocalClock. Here it is the clock read
 * <em>after</em> the unlinking CAS (a full fence): an increment the retirer had not seen yet may
 * have happened between its last check and its unlink, and a reader that acknowledged that
 * increment could still reach the node, so only an increment strictly after the stamp may count as
 * the node's warning. The list may be reclaimed once {@code clock > lastRetireTime} (every node in
 * it carries a stamp {@code <= lastRetireTime}). When the list is full and no such increment
 * happened, the reclaimer CASes the clock from {@code lastRetireTime}; if the CAS fails someone
 * else advanced it, which serves just as well (the paper's piggy-backing on a failed CAS). Between
 * half and full capacity a list is reclaimed whenever another participant's warning already
 * covers it (the paper's threshold X).
 *
 * <h2>Why the clock is a field of the scheme, not a {@code dev.floe.reclaim.EraClock}</h2>
 * A walk checks the clock after every node. With the scheme in a register, a field of its own
 * is one load per check; a separate clock object adds the load of its reference, repeated after
 * every check because the clock's volatile read orders the loads that follow it. The walk also
 * holds the acknowledged value in a local ({@link #watchToken}) instead of reloading it from the
 * participant. Together these made the per-node check as cheap as OA-BIT's (one load of the
 * participant's bit): on {@code list-5k-update} with one thread OA-VER took 1.7–2.0% more CPU
 * per operation than OA-BIT before, 0.2–0.6% after, within the noise (docs/lockfree.md, "Where
 * the time went"). The clock
 * is written once per reclamation pass at most, so sharing a cache line with the scheme's
 * read-only fields costs those readers one miss per warning.
 */
final class OaVerReclamation extends OptimisticAccess {
    private static final VarHandle CLOCK;

    /** The global clock (the paper's GlobalClock); only grows, by CAS from a retire stamp. */
    private volatile long clock = 1;

    OaVerReclamation(FloeAllocator allocator, int limboCapacity) {
        super(allocator, limboCapacity);
    }

    @Override
    public String name() {
        return "oa-ver";
    }

    @Override
    void beginWatch(Participant p) {
        p.localClock = clock; // volatile read: ordered before the traversal's loads
    }

    @Override
    boolean warned(Participant p) {
        return warned(p, p.localClock);
    }

    /** The participant's acknowledged clock, for a walk to keep in a local. */
    @Override
    long watchToken(Participant p) {
        return p.localClock;
    }

    @Override
    boolean warned(Participant p, long seen) {
        VarHandle.loadLoadFence(); // LoadLoad: the validated loads come before the clock load
        return clock != seen;
    }

    /**
     * Readers need no participant: the token is the clock value read now (a volatile read,
     * ordered before the walk's loads), and a warning is any later value. Restarts of readers are
     * counted in {@link #readerRestarts} (they are rare; a participant's counter is not at hand).
     */
    @Override
    long enterRead() {
        return clock;
    }

    @Override
    boolean readWarned(long token) {
        VarHandle.loadLoadFence(); // LoadLoad: the validated loads come before the clock load
        return clock != token;
    }

    @Override
    long readRestart(long token) {
        readerRestarts.increment();
        return clock;
    }

    @Override
    void exitRead(long token) {
        // nothing borrowed, nothing retired
    }

    @Override
    void noteRetire(Participant p) {
        p.lastRetireTime = clock; // volatile read after the unlinking CAS
    }

    /**
     * Full, or at least half full (the paper's threshold X, at least one node: a capacity of 1
     * would otherwise make it 0, and every operation would run a pass over an empty list) with a
     * warning after its newest retire.
     */
    @Override
    boolean wantsReclaim(Participant p) {
        return p.limbo.isFull()
                || (p.limbo.sinceLastPass() >= Math.max(1, p.limbo.capacity() / 2) && clock > p.lastRetireTime);
    }

    @Override
    void warnBeforeReclaim(Participant p) {
        long stamp = p.lastRetireTime;
        if (clock > stamp) return;                                       // piggy-back on a later warning
        if (CLOCK.compareAndSet(this, stamp, stamp + 1)) p.warningsSent++; // failed CAS: someone else warned
    }

    static {
        try {
            CLOCK = MethodHandles.lookup().findVarHandle(OaVerReclamation.class, "clock", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
