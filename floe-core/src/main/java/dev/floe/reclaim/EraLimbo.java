package dev.floe.reclaim;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Retired slices that a drain of {@link RetireBatches} hands over and that cannot all be freed at
 * once, kept in groups stamped with their <em>retire era</em>: the small side structure of the
 * epoch-style schemes ({@link EpochSomar}, {@link HazardErasSomar}), of Nova (slices held by a
 * writer) and of Snowflake's epochs ({@code dev.floe.manual}).
 *
 * <p>Why it exists: {@link RetireBatches} holds bare references (one {@code long} each), and a
 * drain stamps the whole batch with one era. Nova could re-append what it cannot free, because
 * its test (is the reference in a hazard slot?) does not depend on when the slice was retired.
 * Epoch and era tests do: re-appending would re-stamp a slice with a later era at each drain,
 * and a later era is blocked by the accesses in flight at that later drain, so under steady
 * traffic the slice would never be freed. The limbo keeps each group's original era instead.
 * (For Nova, parking instead of re-appending from inside the drain avoids the recursion add,
 * seal, drain, add.)
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li>{@link #park}: copy the references into a group and push it on the parked stack (CAS on
 *       its head; the group's fields are written before the CAS).</li>
 *   <li>{@link #sweep}: take the whole stack with one exchange (every taken group then belongs to
 *       the taking thread alone), <em>then</em> take a {@link HazardSnapshot} of the announcement
 *       slots, and hand each group to the scheme's {@link Release}; what it keeps is pushed back.
 *       The snapshot must follow the taking: a group parked by another drainer may hold slices
 *       deleted after this thread's last snapshot, and the scheme's safety argument needs a scan
 *       that follows the deletes. It does: the other drainer's deletes precede its park's CAS,
 *       which this thread's exchange reads (directly or through the CASes of later pushes, each
 *       of which read the one before), so they happen-before the snapshot's loads.</li>
 *   <li>{@link #drain}: a sweep that also offers the calling drainer's fresh batch against the
 *       same snapshot (taken after the batch's seal, in program order) and parks only what the
 *       batch keeps, so a fresh batch is never visible to another thread's sweep.</li>
 * </ul>
 * Size: a group per drain whose slices are not all free yet. Groups accumulate only while
 * something blocks reclamation: under EBR any stalled access (EBR is not robust), under Hazard
 * Eras a stalled access whose era lies in the lifetime of the slices held, under Snowflake a
 * participant not yet ejected. A sweep costs one pass over the groups; a sweep with nothing
 * parked costs one volatile read.
 *
 * <h2>No allocation in the steady state</h2>
 * A group that empties goes to a small pool ({@link #POOL} slots, each taken and filled by one
 * atomic exchange, so no group is ever in two places) and {@link #park} reuses its array; the
 * snapshot is handed from sweep to sweep the same way. Only a park that finds the pool empty (more
 * groups in flight than ever before, or a batch larger than a pooled array) or a sweep that
 * overlaps another allocates. The stack is popped only whole (one exchange), never node by node,
 * so a group that is recycled and pushed again while a pusher's CAS is pending cannot corrupt it
 * (the ABA problem of a Treiber stack's pop does not arise).
 */
public final class EraLimbo {
    /** The scheme's reclamation test and free. */
    @FunctionalInterface
    public interface Release {
        /**
         * Frees the slices of {@code refs[0..count)}, all retired by era {@code era}, that no
         * announcement in {@code announced} protects; compacts the others to the front of
         * {@code refs} and returns how many they are.
         */
        int release(long era, long[] refs, int count, HazardSnapshot announced);
    }

    /** Empty groups kept for reuse. */
    static final int POOL = 8;

    /** Parked references of one era; written by one thread at a time (see the class comment). */
    private static final class Group {
        long era;
        long[] refs;
        int count;
        /** The group below this one on the parked stack. */
        Group next;

        Group(int capacity) {
            refs = new long[capacity];
        }
    }

    private final AtomicReference<Group> parked = new AtomicReference<>();
    private final AtomicReferenceArray<Group> pool = new AtomicReferenceArray<>(POOL);
    private final AtomicReference<HazardSnapshot> spareSnapshot = new AtomicReference<>(new HazardSnapshot());
    private final AtomicLong waiting = new AtomicLong();

    /** Parks {@code refs[0..count)}, retired by era {@code era} (copied: the caller keeps the array). */
    public void park(long era, long[] refs, int count) {
        if (count == 0) return;
        Group g = emptyGroup(count);
        System.arraycopy(refs, 0, g.refs, 0, count);
        g.era = era;
        g.count = count;
        waiting.addAndGet(count);
        push(g);
    }

    /**
     * Offers every parked group to {@code release} against a snapshot of {@code slots} taken after
     * the groups and after a reading of {@code clock} ({@link HazardSnapshot#clockBefore()}).
     */
    public void sweep(HazardSlots slots, EraClock clock, Release release) {
        if (waiting.get() == 0) return;
        Group taken = parked.getAndSet(null);
        if (taken == null) return;
        HazardSnapshot announced = takeSnapshot(clock, slots); // after the taking: see the class comment
        releaseTaken(taken, release, announced);
    }

    /**
     * A drain's sweep: offers {@code refs[0..count)}, a batch the calling thread sealed in era
     * {@code era} (after its deletes and the seal's fence), and every parked group to
     * {@code release} against one snapshot of {@code slots}, taken after both; parks what the
     * batch keeps. The batch is never parked before it was offered, so no other thread's sweep can
     * take it: a sweeper that stalls holds back only groups that were already kept once, never
     * another thread's fresh batch (Nova's robustness: every batch is drained by its sealer).
     */
    public void drain(HazardSlots slots, EraClock clock, Release release, long era, long[] refs, int count) {
        Group taken = waiting.get() == 0 ? null : parked.getAndSet(null);
        HazardSnapshot announced = takeSnapshot(clock, slots); // after the seal and the taking
        int kept = release.release(era, refs, count, announced);
        if (taken != null) releaseTaken(taken, release, announced);
        else spareSnapshot.set(announced);
        park(era, refs, kept);
    }

    /** The spare snapshot (or a new one if another sweep holds it), taken now. */
    private HazardSnapshot takeSnapshot(EraClock clock, HazardSlots slots) {
        HazardSnapshot announced = spareSnapshot.getAndSet(null);
        if (announced == null) announced = new HazardSnapshot(); // another sweep holds the spare
        announced.take(clock, slots);
        return announced;
    }

    /** Offers the taken groups to {@code release}, pushes back what they keep, returns the snapshot to the spare. */
    private void releaseTaken(Group taken, Release release, HazardSnapshot announced) {
        while (taken != null) {
            Group g = taken;
            taken = g.next;
            g.next = null;
            int kept = release.release(g.era, g.refs, g.count, announced);
            waiting.addAndGet(kept - g.count);
            if (kept > 0) {
                g.count = kept;
                push(g);
            } else {
                recycle(g);
            }
        }
        spareSnapshot.set(announced);
    }

    /** Slices parked (approximate while sweeps run). */
    public long waiting() {
        return waiting.get();
    }

    private void push(Group g) {
        while (true) {
            Group top = parked.get();
            g.next = top;
            if (parked.compareAndSet(top, g)) return;
        }
    }

    /** A pooled group whose array holds {@code count} references, or a new one. */
    private Group emptyGroup(int count) {
        for (int i = 0; i < POOL; i++) {
            if (pool.getPlain(i) != null) { // plain: a hint; the getAndSet takes the group
                Group g = pool.getAndSet(i, null);
                if (g != null) {
                    if (g.refs.length < count) g.refs = new long[count];
                    return g;
                }
            }
        }
        return new Group(count);
    }

    private void recycle(Group g) {
        g.count = 0;
        for (int i = 0; i < POOL; i++) {
            if (pool.getPlain(i) == null && pool.compareAndSet(i, null, g)) return; // plain: a hint; the CAS decides
        }
        // pool full: let the group go
    }
}
