package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;

import java.util.ArrayList;
import java.util.List;

/**
 * A scheme for lockstep tests of the list's protocol, which play a concurrent thread's step at
 * one exact point of a single-threaded operation: no reclamation, one participant for the test
 * thread, no warning and every protect granted unless a subclass plays otherwise (it overrides
 * {@link #warned}, {@link #acknowledge} or {@link #protect}), and every retired node recorded in
 * {@link #retired}, never freed (the allocator goes with the test). The broken scheme of
 * {@link BrokenReclamationIsDetectedTest} builds on it too, with a participant per thread and a
 * retire that frees at once.
 */
abstract class LockstepScheme extends Reclamation {
    private final Participant shared = new Participant(0, 1);
    final Region region;
    /** The nodes retired so far, in order. */
    final List<Long> retired = new ArrayList<>();

    LockstepScheme(FloeAllocator alloc) {
        super(alloc, 1);
        this.region = alloc.region();
    }

    @Override
    public String name() {
        return "lockstep-" + getClass().getSimpleName();
    }

    @Override
    Participant enter() {
        return shared;
    }

    @Override
    void exit(Participant p) {
    }

    @Override
    boolean warned(Participant p) {
        return false;
    }

    @Override
    void acknowledge(Participant p) {
        throw new AssertionError("never warned");
    }

    @Override
    boolean protect(Participant p, long a, long b, long c) {
        return true;
    }

    @Override
    void unprotect(Participant p) {
    }

    @Override
    void retire(Participant p, long node) {
        retired.add(node);
    }

    @Override
    public void reclaimIdle() {
    }
}
