package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Optimistic Access (OA) reclamation as the LRMalloc/OA paper simplifies it (section 3.1) for an
 * allocator whose freed memory stays readable: no recycling pools, freed nodes go straight back
 * to {@link FloeAllocator#free}. Subclasses choose the warning mechanism (OA-BIT or OA-VER).
 *
 * <h2>Protocol and why it is safe</h2>
 * <ul>
 *   <li><b>Readers</b> load node words with no protection, then {@link #warned} issues a
 *       {@code loadLoadFence} and loads the warning. A reclaimer sends the warning (a release
 *       store or a CAS) and only then fences, scans the hazard pointers and frees; whoever reuses
 *       a freed block learns of it through the allocator (CAS chains), so the warning
 *       happens-before every write to a reused node. A reader that saw such a write in a load
 *       ordered before its warning load therefore sees the warning and discards what it read.
 *       Reads of freed, not reused memory see stale words or zeros (released superblocks) and
 *       never fault: the region keeps every offset mapped (invariant 1). A value read from a
 *       node is only followed (as an offset) after the check passed.</li>
 *   <li><b>Modifying steps</b> publish hazard pointers on every node they are about to CAS
 *       (predecessor, current, successor) in their participant's three fixed slots (opaque stores
 *       and one full fence) and then check the warning once. Dekker-style with the reclaimer
 *       (warn; fence; scan): either the reclaimer's scan sees the hazard, or the writer sees the
 *       warning and restarts. With no warning seen since the traversal started, none of the
 *       nodes had been freed, so the CAS cannot act on a reused node (no ABA).</li>
 *   <li><b>Retire</b> appends the unlinked node to the participant's limbo list. When an
 *       operation ends with a full list, the participant sends a warning (or piggy-backs on one),
 *       fences, snapshots the hazard slots and frees every listed node they do not hold
 *       (Algorithm 3); held nodes stay for the next pass.</li>
 * </ul>
 * <h2>Why fixed per-participant hazard pointers, not {@code dev.floe.reclaim.HazardSlots}</h2>
 * OA publishes up to three hazard pointers together and then checks once. In
 * {@code HazardSlots} every publication claims a slot with its own CAS (three CASes, three probe
 * loops); the participant an operation holds already gives exclusive slots, so here the
 * publication is three opaque stores and one fence. The state stays bounded because participants
 * are (three words each, scanned from the participant table; see below). A reclaimer that read
 * the table before a participant was appended cannot miss its hazards: that participant's
 * operation began after the append, hence after every node the reclaimer frees was unlinked
 * (see {@link Participants}).
 * The EBR baseline does use {@code HazardSlots}, for its epoch announcements.
 *
 * <p>A node is unlinked before it is retired and a fresh traversal from a head cannot reach an
 * unlinked node (Harris–Michael), so a warning sent after the unlink reaches every thread that
 * may still hold it.
 *
 * <h2>Bounded state and robustness</h2>
 * A few platform threads keep a participant between operations, the others borrow one per
 * operation ({@link Participants}), so their number is at most the cap on owned ones plus the
 * peak number of borrowed operations. Each limbo list holds at most its capacity plus the nodes
 * held by hazard pointers at its last pass (at most three per participant). A stalled thread
 * holds at most three hazard pointers and one limbo list: it never stops other threads from
 * reclaiming (invariant 5).
 */
abstract sealed class OptimisticAccess extends Reclamation permits OaBitReclamation, OaVerReclamation {
    OptimisticAccess(FloeAllocator allocator, int limboCapacity) {
        super(allocator, limboCapacity);
    }

    /** Starts watching: clears the warning (OA-BIT) or records the clock (OA-VER). */
    abstract void beginWatch(Participant p);

    /**
     * Makes sure a warning has been sent after every node in {@code p}'s limbo list was retired:
     * sends one, or piggy-backs on a later one.
     */
    abstract void warnBeforeReclaim(Participant p);

    /** Whether an operation ending now should run a reclamation pass (default: limbo list full). */
    boolean wantsReclaim(Participant p) {
        return p.limbo.isFull();
    }

    @Override
    final Participant enter() {
        Participant p = participants.acquire();
        beginWatch(p);
        return p;
    }

    @Override
    final void exit(Participant p) {
        unprotect(p);
        if (wantsReclaim(p)) reclaim(p);
        participants.release(p);
    }

    @Override
    final void acknowledge(Participant p) {
        p.restarts++;
        beginWatch(p);
    }

    @Override
    final boolean protect(Participant p, long a, long b, long c) {
        p.publishHazards(a, b, c); // ends with a full fence: visible before the warning load
        if (warned(p)) {
            p.clearHazards();
            return false;
        }
        return true;
    }

    @Override
    final void unprotect(Participant p) {
        p.clearHazards();
    }

    @Override
    final void retire(Participant p, long node) {
        p.retired++;
        p.limbo.add(node, 0);
        noteRetire(p);
    }

    /** Records the retire time (OA-VER's LastRetireTime); the caller's unlinking CAS precedes it. */
    abstract void noteRetire(Participant p);

    /** Algorithm 3 after the warning: free every limbo node no hazard pointer holds. */
    @Override
    final void reclaim(Participant p) {
        warnBeforeReclaim(p);
        VarHandle.fullFence(); // StoreLoad: the warning is visible before the hazard scan below
        long[] held = hazardSnapshot();
        p.reclaims++;
        p.freed += p.limbo.drain((node, stamp) -> held.length == 0 || Arrays.binarySearch(held, node) < 0,
                allocator);
    }

    /** Every participant's hazard pointers, sorted for binary search (volatile loads). */
    private long[] hazardSnapshot() {
        Participant[] all = participants.all();
        long[] out = new long[all.length * Participant.MAX_HAZARDS];
        int n = 0;
        for (Participant q : all) n = q.collectHazards(out, n);
        long[] held = Arrays.copyOf(out, n);
        Arrays.sort(held);
        return held;
    }
}
