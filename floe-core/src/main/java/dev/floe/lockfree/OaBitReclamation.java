package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.lang.invoke.VarHandle;

/**
 * OA-BIT (the paper's Algorithm 1): every participant has a warning bit; a participant whose limbo
 * list is full sets the bit of every participant (itself included) and reclaims. A reader checks
 * its own bit after its loads; a restart clears it. Every full limbo list costs a round of
 * warnings to everyone, so long traversals (lists) restart often; see {@link OaVerReclamation}.
 */
final class OaBitReclamation extends OptimisticAccess {

    OaBitReclamation(FloeAllocator allocator, int limboCapacity) {
        super(allocator, limboCapacity);
    }

    @Override
    public String name() {
        return "oa-bit";
    }

    @Override
    void beginWatch(Participant p) {
        // A clear bit needs no store: any later warning stays set until we see it. A set bit is
        // cleared with a volatile store, visible before the traversal's first load.
        if (p.isWarned()) p.clearWarning();
    }

    @Override
    boolean warned(Participant p) {
        VarHandle.loadLoadFence(); // LoadLoad: the validated loads come before the warning load
        return p.isWarned();
    }

    @Override
    void noteRetire(Participant p) {
        // every reclamation warns afresh, so retire times are not needed
    }

    @Override
    void warnBeforeReclaim(Participant p) {
        for (Participant q : participants.all()) q.warn();
        p.warningsSent++;
    }
}
