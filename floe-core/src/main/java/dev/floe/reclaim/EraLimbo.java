package dev.floe.reclaim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Retired slices that a drain of {@link RetireBatches} could not free yet, kept in groups
 * stamped with their <em>retire era</em>: the small side structure of the epoch-style schemes
 * ({@link EpochSomar}, {@link HazardErasSomar}) and of Snowflake's epochs ({@code dev.floe.manual}).
 *
 * <p>Why it exists: {@link RetireBatches} holds bare references (one {@code long} each), and a
 * drain stamps the whole batch with one era. Nova can re-append what it cannot free, because
 * its test (is the reference in a hazard slot?) does not depend on when the slice was retired.
 * Epoch and era tests do: re-appending would re-stamp a slice with a later era at each drain,
 * and a later era is blocked by the accesses in flight at that later drain, so under steady
 * traffic the slice would never be freed. The limbo keeps each group's original era instead.
 * (It also suits Nova's slices held by a writer, whose test ignores the era: parking them here
 * instead of re-appending them from inside the drain avoids the recursion add, seal, drain, add.)
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li>{@link #park}: copy the references still held and append the group (lock-free queue).</li>
 *   <li>{@link #sweep}: take every group present (each taken group belongs to the taking thread
 *       alone), <em>then</em> snapshot the announcement slots, and hand each group to the scheme's
 *       {@link Release}; what it keeps goes back. The snapshot must follow the taking: a group
 *       parked by another drainer may hold slices deleted after this thread's last snapshot, and
 *       the scheme's safety argument needs a scan that follows the deletes (the queue's CAS and
 *       volatile reads order the other drainer's deletes and park before this snapshot).</li>
 * </ul>
 * Size: a group per drain that could not free everything. Groups accumulate only while something
 * blocks reclamation: under EBR any stalled access (EBR is not robust), under Hazard Eras a
 * stalled access whose era lies in the lifetime of the slices held. A sweep costs one pass over
 * the groups; a sweep with nothing parked costs one volatile read.
 */
public final class EraLimbo {
    /** The scheme's reclamation test and free. */
    @FunctionalInterface
    public interface Release {
        /**
         * Frees the slices of {@code refs[0..count)}, all retired by era {@code era}, that no
         * announcement in {@code announced} (a sorted {@link HazardSlots#snapshot}) protects;
         * compacts the others to the front of {@code refs} and returns how many they are.
         */
        int release(long era, long[] refs, int count, long[] announced);
    }

    private record Group(long era, long[] refs, int count) {}

    private final ConcurrentLinkedQueue<Group> groups = new ConcurrentLinkedQueue<>();
    private final AtomicInteger groupCount = new AtomicInteger();
    private final AtomicLong waiting = new AtomicLong();

    /** Parks {@code refs[0..count)}, retired by era {@code era} (copied: the caller keeps the array). */
    public void park(long era, long[] refs, int count) {
        if (count == 0) return;
        waiting.addAndGet(count);
        groupCount.incrementAndGet();
        groups.offer(new Group(era, Arrays.copyOf(refs, count), count));
    }

    /** Offers every parked group to {@code release} against a fresh snapshot of {@code slots}. */
    public void sweep(HazardSlots slots, Release release) {
        if (waiting.get() == 0) return;
        List<Group> taken = new ArrayList<>();
        for (int n = groupCount.get(); n > 0; n--) { // bounded: never chases groups re-parked meanwhile
            Group g = groups.poll();
            if (g == null) break;
            groupCount.decrementAndGet();
            taken.add(g);
        }
        if (taken.isEmpty()) return;
        long[] announced = slots.snapshot(); // after the taking: see the class comment
        for (Group g : taken) {
            int kept = release.release(g.era, g.refs, g.count, announced);
            waiting.addAndGet(kept - g.count);
            if (kept > 0) {
                long[] refs = kept < g.count / 2 ? Arrays.copyOf(g.refs, kept) : g.refs;
                groupCount.incrementAndGet();
                groups.offer(new Group(g.era, refs, kept));
            }
        }
    }

    /** Slices parked (approximate while sweeps run). */
    public long waiting() {
        return waiting.get();
    }
}
