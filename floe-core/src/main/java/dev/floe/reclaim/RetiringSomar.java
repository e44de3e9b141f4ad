package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * What Nova and the epoch-style baselines share: slices through {@link SliceAccess}, deletes
 * through {@link RetireBatches}, and a drain that advances the clock, frees what the scheme's
 * rule allows and parks the rest in an {@link EraLimbo}. A scheme adds how an access protects
 * itself (its {@code readOr}/{@code writeOr}, announcing in {@link #slots}; the epoch baselines
 * share {@link #announcedAccess}) and its rule ({@link #release}).
 *
 * <p>The drain: advance the clock (atomic increment, a full fence: every delete of the batch
 * precedes the scans that follow), then let the limbo apply the rule to this batch and to the groups
 * earlier drains kept, against one snapshot of the slots taken after the fence
 * ({@link EraLimbo#drain}), and park what the batch keeps, stamped with the era it was sealed in.
 * The batch is offered before it is parked, so only its sealer ever drains it. Parking instead of
 * re-appending keeps each slice's retire era (the epoch rules depend on it) and cannot recurse.
 *
 * <h2>One announcement table per allocator and scheme</h2>
 * Instances of one scheme on one allocator share the allocator's version clock
 * ({@link SliceAccess}) and the header layout, so each accepts the others' pointers: a pointer
 * of instance {@code b} may reach a write (or, for the baselines, any access) through instance
 * {@code a}, while {@code b} deletes and drains it. A drain must then see {@code a}'s
 * announcement, or it frees the slice under {@code a}'s writer, and the writer's stores land in
 * the block's next occupant. So the {@link #slots} are shared too: one table per allocator and
 * scheme class ({@link #sharedSlots}), which every drain of every such instance scans. A scheme
 * of another class on the same allocator announces in another table with another meaning (an
 * offset, an epoch, an era): passing it a pointer of this scheme is not protected against this
 * scheme's drains.
 */
abstract sealed class RetiringSomar implements Somar permits Nova, EpochSomar, HazardErasSomar {
    final SliceAccess access;
    /** The allocator's version clock (see {@link SliceAccess}): Nova's era, EBR's epoch. */
    final EraClock clock;
    /** Weak keys, as {@link SliceAccess}'s clocks: a dropped allocator takes its tables along. */
    private static final Map<FloeAllocator, Map<Class<?>, HazardSlots>> SLOTS =
            Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * Announcements scanned by the drain: Nova's writers, EBR's epochs, HE's eras; shared by every
     * instance of this scheme on this allocator (see the class comment).
     */
    final HazardSlots slots;
    private final RetireBatches retired;
    private final EraLimbo limbo = new EraLimbo();
    /** {@link #release} as the limbo's callback (one object, not one per drain). */
    private final EraLimbo.Release rule = this::release;

    RetiringSomar(FloeAllocator allocator, String scheme, int batch, boolean magicNumbers) {
        if (batch <= 0 || batch > Nova.MAX_BATCH) {
            throw new IllegalArgumentException(scheme + " batch " + batch + " is not in [1, " + Nova.MAX_BATCH
                    + "]: each of the retire stripes keeps an array of that many references");
        }
        this.access = new SliceAccess(allocator, scheme, magicNumbers);
        this.clock = access.clock;
        this.slots = sharedSlots(allocator, getClass());
        this.retired = new RetireBatches(batch, RetireBatches.defaultStripes(), this::drain);
    }

    /**
     * The announcement table of {@code scheme}'s instances on {@code allocator}: created by the
     * first, shared by the others, so that a drain of any of them sees an access through any other
     * (see the class comment).
     */
    private static HazardSlots sharedSlots(FloeAllocator allocator, Class<?> scheme) {
        synchronized (SLOTS) {
            return SLOTS.computeIfAbsent(allocator, a -> new HashMap<>()).computeIfAbsent(scheme, s -> new HazardSlots());
        }
    }

    /**
     * The scheme's rule: frees the slices of {@code refs[0..count)}, retired in era {@code sealed},
     * that no announcement in {@code announced} (a snapshot of {@link #slots}) can still reach;
     * compacts the others to the front and returns how many they are.
     */
    abstract int release(long sealed, long[] refs, int count, HazardSnapshot announced);

    /**
     * {@inheritDoc} Out of budget, it first frees what the retire batches hold and no
     * announcement protects ({@link #reclaimNow}, which also waits briefly for batches other
     * threads are draining) and tries once more: deleted slices wait in the batches until one
     * fills, so a thread that only allocates would otherwise be refused while most of the budget
     * is deleted slices. Slices other threads delete meanwhile may still be waiting then.
     */
    @Override
    public final long allocate(long length) {
        try {
            return access.allocate(length); // reads the clock after taking the block
        } catch (FloeOutOfMemoryException full) {
            reclaimNow();
            return access.allocate(length);
        }
    }

    @Override
    public final boolean delete(long ptr) {
        if (!access.markDeleted(ptr)) return false; // the header CAS: one winner
        retired.add(SafePointer.headerOffset(ptr));
        return true;
    }

    @Override
    public final <P, R> R writePrivate(long ptr, SliceWriter<P, R> writer, P param) {
        Objects.requireNonNull(writer, "writer");
        long h = access.liveHeaderPlain(ptr);
        if (h == 0) throw new DeletedSliceException(ptr);
        return writer.write(access.view(ptr, h), param);
    }

    @Override
    public final void deletePrivate(long ptr) {
        access.markDeletedPrivate(ptr);
        // Still through the batches: the clock must advance before the block is reused, or a
        // copy of this pointer would match the next incarnation's version.
        retired.add(SafePointer.headerOffset(ptr));
    }

    @Override
    public final void reclaimNow() {
        retired.drainAll();
        limbo.sweep(slots, clock, rule);
    }

    /**
     * The epoch baselines' access ({@link EpochSomar}'s pin, {@link HazardErasSomar}'s protect):
     * announce the clock's current value in a hazard slot (one CAS, a full fence), validate the
     * header (volatile load, after the announcement), run {@code reader} on a read-only view or
     * else {@code writer} on a writable view of exactly the slice, then clear the slot (release
     * store, after the access's loads and stores). No post-validation: the announcement keeps the
     * slice from being freed.
     *
     * @param untilStable re-read the clock after each validation and, if it moved, announce the
     *                    new value and validate again (HE's {@code get_protected} loop: the
     *                    announcement must be current after the load it protects); EBR announces
     *                    once ({@code false})
     */
    final <P, R> R announcedAccess(long ptr, boolean untilStable, SliceReader<R> reader, SliceWriter<P, R> writer,
            P param, R onFailure) {
        if (SafePointer.isDeleted(ptr)) return onFailure; // no announcement for a pointer that fails anyway
        long announced = clock.current();
        int slot = slots.protect(announced); // CAS: claim + publish, full fence
        try {
            long h;
            while (true) {
                h = access.liveHeaderVolatile(ptr); // after the publication (StoreLoad via the CAS)
                if (h == 0) return onFailure;
                if (!untilStable) break;
                long now = clock.current(); // after the validation: HE's stability check
                if (now == announced) break;
                slots.clear(slot);
                slot = -1;
                announced = now;
                slot = slots.protect(announced);
            }
            return reader != null
                    ? reader.read(access.readOnlyView(ptr, h))
                    : writer.write(access.view(ptr, h), param);
        } finally {
            if (slot >= 0) slots.clear(slot); // release: the access's loads and stores first
        }
    }

    /**
     * Closes the era of a batch about to be released and returns it: by default the clock
     * advances (an atomic increment: a full fence, so the batch's deletes precede the scans that
     * follow) and the batch belongs to the era before the increment. The epoch schemes need that
     * advance for progress; Nova overrides it.
     */
    long seal(long[] refs, int count) {
        return clock.advance() - 1;
    }

    private void drain(long[] refs, int count) {
        long sealed = seal(refs, count);
        limbo.drain(slots, clock, rule, sealed, refs, count); // one snapshot, after the seal's fence
    }

    /** Length of the live slice, or -1 if the pointer no longer names one. */
    public final long length(long ptr) {
        return access.length(ptr);
    }

    /** Largest slice length {@link #allocate} accepts: the largest block minus the header. */
    public final long maxSlice() {
        return access.maxSlice();
    }

    /** Deleted slices not yet returned to the allocator (batches and limbo; approximate). */
    public final long waitingSlices() {
        return retired.waiting() + limbo.waiting();
    }

    /** The allocator the slices come from. */
    public final FloeAllocator allocator() {
        return access.allocator;
    }
}
