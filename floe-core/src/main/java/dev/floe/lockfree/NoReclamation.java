package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

/**
 * The paper's NR baseline: unlinked nodes are never freed, so nothing can be reclaimed under a
 * reader and nothing needs protecting. Operations borrow no participant (all use one shared
 * placeholder whose counters are never written), so this measures the structure alone.
 */
final class NoReclamation extends Reclamation {
    private final Participant shared = new Participant(0, 1);
    private final java.util.concurrent.atomic.LongAdder leaked = new java.util.concurrent.atomic.LongAdder();

    NoReclamation(FloeAllocator allocator) {
        super(allocator, 1);
    }

    @Override
    public String name() {
        return "nr";
    }

    @Override
    Participant enter() {
        return shared;
    }

    @Override
    void exit(Participant p) {
        // nothing announced, nothing to reclaim
    }

    @Override
    boolean warned(Participant p) {
        return false; // nothing is ever freed
    }

    @Override
    void acknowledge(Participant p) {
        throw new IllegalStateException("nr never warns, so there is nothing to acknowledge");
    }

    @Override
    long enterRead() {
        return 0;
    }

    @Override
    boolean readWarned(long token) {
        return false;
    }

    @Override
    long readRestart(long token) {
        throw new IllegalStateException("nr never warns, so there is nothing to acknowledge");
    }

    @Override
    void exitRead(long token) {
        // nothing was borrowed
    }

    @Override
    boolean protect(Participant p, long a, long b, long c) {
        return true; // nothing is ever freed, so every node stays valid
    }

    @Override
    void unprotect(Participant p) {
        // nothing was published
    }

    @Override
    void retire(Participant p, long node) {
        leaked.increment();
    }

    /** {@code retired} counts the nodes unlinked and never freed (the leak NR accepts). */
    @Override
    public Stats stats() {
        return new Stats(name(), 0, leaked.sum(), 0, 0, 0, 0, 0);
    }

    @Override
    public void reclaimIdle() {
        // NR frees nothing by definition; stats().retired() says how much that costs
    }
}
