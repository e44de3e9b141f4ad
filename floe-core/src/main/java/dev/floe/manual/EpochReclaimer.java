package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EraClock;
import dev.floe.reclaim.EraLimbo;
import dev.floe.reclaim.HazardSlots;
import dev.floe.reclaim.HazardSnapshot;

import java.util.concurrent.atomic.LongAdder;

/**
 * Snowflake's epoch-based deferred reclamation with ejection (paper section 4.1), over Floe's
 * shared mechanisms: the global epoch is an {@link EraClock}, shields are {@link HazardSlots}
 * entries, abandoned objects wait in {@code RetireBatches} and, stamped with their epoch, in an
 * {@link EraLimbo}.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>Participants.</b> Every thread that opens shields has a {@link Participant} (its local
 *       epoch) in a {@link ParticipantRegistry}. A new record starts ejected and joins at its first defend.</li>
 *   <li><b>Abandon.</b> The owner's reference is exchanged with 0 and appended to a retire batch.
 *       A full batch is drained ({@link #drain}) by the thread that seals it: the batch is
 *       stamped with the global epoch read now — at least the epoch in which each of its
 *       objects was abandoned, since the abandon's exchange precedes the append, which precedes
 *       the drain's read of the entry — and parked in the limbo.</li>
 *   <li><b>Advance</b> ({@link #tryAdvance}): the global epoch moves from {@code g} to
 *       {@code g + 1} (one CAS, so at most one advance per value) once every participant has
 *       either seen {@code g} (its state is {@code >= g}) or is ejected. The draining thread
 *       first acknowledges {@code g} itself. A participant that is behind and has no open shield
 *       (an idle thread: it would otherwise hold the epoch until it next defends) is
 *       <b>ejected</b> at once (CAS of its state to {@code EJECTED}); one that is behind with
 *       shields open blocks the advance until the limbo holds
 *       {@link ManualHeap.Config#ejectThreshold} objects or more, or until a create finds the
 *       allocator's budget exhausted, and is then ejected too. (Large objects can fill a budget
 *       long before the threshold's count: one thread parked with a shield on a 64-byte object
 *       made every create of 1 MiB objects fail after 15 on a 16 MiB budget.)
 *       Ejection is always safe (see {@link Shield}): it only decides who pays a rejoin. A participant whose thread ended is
 *       retired: its slots are cleared and the record dropped (a dead thread's shields cannot be
 *       used any more), so per-thread state is given back when threads end.</li>
 *   <li><b>Empty</b> (the paper's {@code Empty()}): read the global epoch {@code G}, then take a
 *       sorted {@link HazardSnapshot} of every slot (the compact summary: one pass over the slots,
 *       then a binary search per object; the paper uses a Bloom filter for the same purpose); free
 *       each parked object whose stamp {@code s} has {@code G >= s + GRACE_EPOCHS} and whose
 *       reference is in no slot; keep the rest parked with their stamp. The snapshot's buffer
 *       and the limbo's groups are reused and the participant table is scanned without an
 *       iterator, so a round allocates nothing in the steady state.</li>
 * </ul>
 *
 * <h2>Why three epochs</h2>
 * {@link Shield}'s class comment proves that a defend which read the object from its owner is
 * visible to every slot snapshot taken after the global epoch reached {@code a + 2}, where
 * {@code a} is the epoch of the abandon. Stamps are read from the global epoch after the
 * abandon, so {@code s >= a}; the paper stamps with the thread's local epoch, which may lag the
 * global one by one, hence its rule {@code s + 3}. We keep the paper's three epochs: with our
 * global stamps that is one epoch of margin, paid in latency, not in memory bound.
 *
 * <h2>Liveness (robustness)</h2>
 * A thread parked or stalled while it holds shields blocks reclamation only until the limbo
 * reaches the ejection threshold; after its ejection it holds back exactly the objects its
 * slots name. When it resumes, its open shields still protect their objects (slots are never
 * revoked, so ejection needs no page protection: the JVM would crash on a fault), and its next
 * defend fails its commit CAS, rejoins and replays.
 */
final class EpochReclaimer {
    /** Epochs an object waits after its stamp (the paper's 3-epoch rule). */
    static final long GRACE_EPOCHS = 3;

    private final FloeAllocator allocator;
    private final EraClock epochs;
    private final HazardSlots slots;
    private final EraLimbo limbo = new EraLimbo();
    /** {@link #empty} as the limbo's callback (one object, not one per sweep). */
    private final EraLimbo.Release emptyRule = this::empty;
    private final long ejectThreshold;
    /** The registered participants: scanned by {@link #tryAdvance}, searched by {@link #join}. */
    private final ParticipantRegistry participants = new ParticipantRegistry(this::retireDead);
    private final LongAdder freed = new LongAdder();
    private final LongAdder ejections = new LongAdder();
    private final LongAdder rejoins = new LongAdder();

    EpochReclaimer(FloeAllocator allocator, EraClock epochs, HazardSlots slots, long ejectThreshold) {
        this.allocator = allocator;
        this.epochs = epochs;
        this.slots = slots;
        this.ejectThreshold = ejectThreshold;
    }

    /**
     * The calling thread's participant: its existing record, or a new (ejected, joining) one.
     * A thread that already has a record gets it back: its thread-local reference was cleared
     * while it lived on, as the common {@code ForkJoinPool} clears its workers' thread-locals
     * after every task. Until 2026-11-24 each such task joined anew and the thread's old records
     * stayed registered as long as the thread lived (an audit counted 7,101 records of one worker
     * after 20,000 tasks). A join costs {@code O(1)} amortized ({@link ParticipantRegistry}).
     */
    Participant join() {
        Thread me = Thread.currentThread();
        Participant p = participants.find(me); // only this thread registers records of itself
        return p != null ? p : participants.add(new Participant(me));
    }

    /** The owning thread rejoins at {@code epoch} (CAS from EJECTED; retried by the caller). */
    void rejoin(Participant p, long epoch) {
        if (p.rejoin(epoch)) rejoins.increment();
    }

    /** A sealed retire batch: stamp, park, advance if possible, free what is old and unshielded. */
    void drain(long[] refs, int count, Participant self) {
        long stamp = epochs.current(); // after every abandon in the batch: see the class comment
        limbo.park(stamp, refs, count);
        collect(self);
    }

    /** One round of acknowledge, advance, empty. */
    void collect(Participant self) {
        collect(self, false);
    }

    /**
     * One round of acknowledge, advance, empty; with {@code ejectLaggards}, every participant that
     * is behind is ejected whatever the limbo holds (the allocator's budget is exhausted: the
     * paper's "too many objects scheduled", counted in bytes rather than objects).
     */
    void collect(Participant self, boolean ejectLaggards) {
        acknowledge(self);
        tryAdvance(ejectLaggards);
        limbo.sweep(slots, epochs, emptyRule); // reads the epoch G, then snapshots the slots
    }

    /**
     * The paper's {@code Empty()} for one parked group stamped {@code stamp}: if the epoch
     * {@code G} read before the snapshot is at least {@code stamp + GRACE_EPOCHS}, free every
     * object no shield in the snapshot holds; keep the rest.
     */
    private int empty(long stamp, long[] refs, int count, HazardSnapshot announced) {
        if (announced.clockBefore() < stamp + GRACE_EPOCHS) return count;
        int kept = 0;
        for (int i = 0; i < count; i++) { // refs[0..kept): shielded; refs[kept..i): to free
            long r = refs[i];
            if (announced.contains(r)) {
                refs[i] = refs[kept];
                refs[kept++] = r;
            }
        }
        allocator.free(refs, kept, count); // one cache stripe claim for the batch
        freed.add(count - kept);
        return kept;
    }

    /** The calling thread (between shield operations) takes the current epoch. */
    private void acknowledge(Participant self) {
        if (self == null) return;
        long s = self.state();
        if (s >= 1) {
            long g = epochs.current();
            if (s < g) self.commit(s, g); // fails only if ejected meanwhile: fine, it rejoins later
        }
    }

    /**
     * Advances the global epoch by one if every participant has seen it or is ejected (ejecting
     * laggards when the limbo is over the threshold or {@code ejectLaggards} is set; retiring the
     * records of ended threads).
     */
    boolean tryAdvance(boolean ejectLaggards) {
        long g = epochs.current();
        boolean blocked = false;
        boolean eject = ejectLaggards || limbo.waiting() >= ejectThreshold;
        Participant[] table = participants.table();
        for (int i = 0; i < table.length; i++) {
            Participant p = ParticipantRegistry.at(table, i);
            if (p == null) continue;
            long s = p.state();
            if (s == Participant.RETIRED) {
                participants.remove(p);
                continue;
            }
            if (!p.thread().isAlive()) { // termination happens-before this result
                retireDead(p);
                continue;
            }
            if (s == Participant.EJECTED || s >= g) continue;
            if ((eject || p.openShields() == 0) && p.eject(s)) {
                ejections.increment();
                continue;
            }
            blocked = true;
        }
        return !blocked && epochs.advanceFrom(g);
    }

    private void retireDead(Participant p) {
        if (p.retire()) {
            for (int slot : p.heldSlots()) slots.clear(slot); // its shields can never be used again
        }
        participants.remove(p);
    }

    long waiting() {
        return limbo.waiting();
    }

    long freed() {
        return freed.sum();
    }

    long ejections() {
        return ejections.sum();
    }

    long rejoins() {
        return rejoins.sum();
    }

    int participantCount() {
        return participants.size();
    }
}
