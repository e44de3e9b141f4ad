package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.HazardSlots;

import java.lang.invoke.VarHandle;

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
 *       (predecessor, current, successor) through the shared {@link HazardSlots} (one CAS each,
 *       which is a full fence) and then check the warning once. Dekker-style with the reclaimer
 *       (warn; fence; scan): either the reclaimer's scan sees the hazard, or the writer sees the
 *       warning and restarts. With no warning seen since the traversal started, none of the
 *       nodes had been freed, so the CAS cannot act on a reused node (no ABA).</li>
 *   <li><b>Retire</b> appends the unlinked node to the participant's limbo list. When an
 *       operation ends with a full list, the participant sends a warning (or piggy-backs on one),
 *       fences, snapshots the hazard slots and frees every listed node they do not hold
 *       (Algorithm 3); held nodes stay for the next pass.</li>
 * </ul>
 * A node is unlinked before it is retired and a fresh traversal from a head cannot reach an
 * unlinked node (Harris–Michael), so a warning sent after the unlink reaches every thread that
 * may still hold it.
 *
 * <h2>Bounded state and robustness</h2>
 * Participants are borrowed per operation ({@link Participants}), so their number is the peak
 * number of concurrent operations. Each limbo list holds at most its capacity plus the nodes held
 * by hazard pointers at its last pass. A stalled thread holds at most three hazard pointers and
 * one limbo list: it never stops other threads from reclaiming (invariant 5).
 */
abstract sealed class OptimisticAccess extends Reclamation permits OaBitReclamation, OaVerReclamation {
    final HazardSlots hazards = new HazardSlots();

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
        hazard(p, a);
        hazard(p, b);
        hazard(p, c);
        // each HazardSlots.protect was a CAS (full fence): the hazards are visible before this load
        if (warned(p)) {
            unprotect(p);
            return false;
        }
        return true;
    }

    private void hazard(Participant p, long node) {
        if (node != 0) p.hazardSlots[p.hazardCount++] = hazards.protect(node);
    }

    @Override
    final void unprotect(Participant p) {
        for (int i = 0; i < p.hazardCount; i++) hazards.clear(p.hazardSlots[i]); // release stores
        p.hazardCount = 0;
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
    final void reclaim(Participant p) {
        warnBeforeReclaim(p);
        VarHandle.fullFence(); // StoreLoad: the warning is visible before the hazard scan below
        long[] held = hazards.snapshot();
        p.reclaims++;
        p.freed += p.limbo.drain((node, stamp) -> !HazardSlots.contains(held, node), allocator::free);
    }

    @Override
    public final void reclaimIdle() {
        for (Participant p : participants.all()) {
            if (p.tryClaim()) {
                try {
                    if (p.limbo.size() > 0) reclaim(p);
                } finally {
                    participants.release(p);
                }
            }
        }
    }
}
