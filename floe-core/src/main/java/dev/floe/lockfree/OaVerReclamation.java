package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EraClock;

import java.lang.invoke.VarHandle;

/**
 * OA-VER (the paper's Algorithm 2): warnings are increments of one global monotonic clock (the
 * shared {@link EraClock}); a participant is warned when the clock differs from the value it last
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
 */
final class OaVerReclamation extends OptimisticAccess {
    private final EraClock clock = new EraClock();

    OaVerReclamation(FloeAllocator allocator, int limboCapacity) {
        super(allocator, limboCapacity);
    }

    @Override
    public String name() {
        return "oa-ver";
    }

    @Override
    void beginWatch(Participant p) {
        p.localClock = clock.current(); // volatile read: ordered before the traversal's loads
    }

    @Override
    boolean warned(Participant p) {
        VarHandle.loadLoadFence(); // LoadLoad: the validated loads come before the clock load
        return clock.current() != p.localClock;
    }

    /**
     * Readers need no participant: the token is the clock value read now (a volatile read,
     * ordered before the walk's loads), and a warning is any later value. Restarts of readers are
     * counted in {@link #readerRestarts} (they are rare; a participant's counter is not at hand).
     */
    @Override
    long enterRead() {
        return clock.current();
    }

    @Override
    boolean readWarned(long token) {
        VarHandle.loadLoadFence(); // LoadLoad: the validated loads come before the clock load
        return clock.current() != token;
    }

    @Override
    long readRestart(long token) {
        readerRestarts.increment();
        return clock.current();
    }

    @Override
    void exitRead(long token) {
        // nothing borrowed, nothing retired
    }

    @Override
    void noteRetire(Participant p) {
        p.lastRetireTime = clock.current(); // volatile read after the unlinking CAS
    }

    @Override
    boolean wantsReclaim(Participant p) {
        return p.limbo.isFull()
                || (p.limbo.sinceLastPass() >= p.limbo.capacity() / 2 && clock.current() > p.lastRetireTime);
    }

    @Override
    void warnBeforeReclaim(Participant p) {
        long stamp = p.lastRetireTime;
        if (clock.current() > stamp) return;             // piggy-back on a later warning
        if (clock.advanceFrom(stamp)) p.warningsSent++;   // failed CAS: someone else warned
    }
}
