package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EraClock;
import dev.floe.reclaim.HazardSlots;

import java.lang.invoke.VarHandle;

/**
 * Epoch-based reclamation ({@code floe-ebr}) behind the same protocol as OA, built from the same
 * shared mechanisms as {@code dev.floe.reclaim.EpochSomar}: the {@link EraClock} is the epoch and
 * every operation announces the epoch it read in a {@link HazardSlots} slot for its whole
 * duration. Readers never restart and modifying steps need no hazard pointers: everything an
 * operation can reach is protected by its announcement.
 *
 * <h2>Rule</h2>
 * A node is stamped, at retire, with the epoch read after its unlinking CAS. When a limbo list is
 * full the epoch advances and every node whose stamp is below the smallest announced epoch is
 * freed. Why that is safe: an operation that announced epoch {@code e > stamp} read the clock
 * after it moved past {@code stamp}, hence after the unlink, and it traverses only after its
 * announcement, so it cannot reach the node. An operation that read the clock but had not yet
 * announced when the reclaimer scanned (the announcement CAS is a full fence, and so is the
 * reclaimer's before its scan) starts traversing after the scan, hence after the unlink.
 *
 * <p>Not robust: one stalled operation keeps the smallest announced epoch down and every limbo
 * list grows without bound behind it (the point of comparison with OA).
 */
final class EpochReclamation extends Reclamation {
    private final EraClock clock = new EraClock();
    private final HazardSlots announcements = new HazardSlots();

    EpochReclamation(FloeAllocator allocator, int limboCapacity) {
        super(allocator, limboCapacity);
    }

    @Override
    public String name() {
        return "floe-ebr";
    }

    @Override
    Participant enter() {
        Participant p = participants.acquire();
        p.epochSlot = announcements.protect(clock.current()); // CAS: full fence before traversal
        return p;
    }

    @Override
    void exit(Participant p) {
        announcements.clear(p.epochSlot); // release store: after every access of the operation
        p.epochSlot = -1;
        if (p.limbo.isFull()) reclaim(p);
        participants.release(p);
    }

    @Override
    boolean warned(Participant p) {
        return false; // the announcement protects every node the operation can reach
    }

    @Override
    void acknowledge(Participant p) {
        throw new IllegalStateException("floe-ebr never warns, so there is nothing to acknowledge");
    }

    @Override
    boolean protect(Participant p, long a, long b, long c) {
        return true; // covered by the epoch announcement
    }

    @Override
    void unprotect(Participant p) {
        // nothing was published beyond the announcement
    }

    @Override
    void retire(Participant p, long node) {
        p.retired++;
        p.limbo.add(node, clock.current()); // volatile read after the unlinking CAS
    }

    @Override
    void reclaim(Participant p) {
        clock.advance(); // full fence
        p.warningsSent++;
        VarHandle.fullFence(); // StoreLoad: the unlinks before the announcement scan (the advance's RMW is one too)
        long[] announced = announcements.snapshot();
        long oldest = announced.length == 0 ? Long.MAX_VALUE : announced[0];
        p.reclaims++;
        p.freed += p.limbo.drain((node, stamp) -> stamp < oldest, allocator);
    }
}
