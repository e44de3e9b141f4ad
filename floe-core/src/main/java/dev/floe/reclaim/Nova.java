package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.SizeClasses;
import dev.floe.memory.Region;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * Nova: SOMAR with optimistic reads, hazard-slot writes and era-based release lists (Nova paper,
 * section 3), on Floe's allocator.
 *
 * <h2>Layout</h2>
 * A slice is a block from the {@link FloeAllocator}: an 8-byte {@link SliceHeader} (version,
 * deleted bit, length) followed by the data. A {@link SafePointer} packs the header's offset,
 * the version and a deleted bit into one {@code long}. The allocator keeps block positions
 * stable (invariant 3) and never writes into freed blocks, and every size-class block of a
 * Nova's allocator is a slice, so a stale pointer always lands on a real header, or on zeros
 * once the superblock was released (version 0 never matches). A slice may own an <em>attached
 * run</em> ({@link #allocateWithRun}): a large block (always a large run, never a size-class
 * block) whose offset follows the slice's data and which is freed together with the slice, so
 * payloads beyond the largest slice keep their header (and so their validation) in a small
 * block of stable position.
 *
 * <p><b>Magic-number mode</b> (appendix B, {@code new Nova(allocator, batch, true)}): the header
 * grows to 16 bytes, a 64-bit random magic followed by the state word; allocation writes the
 * magic before the release store of the state word, every validation also checks the magic, and
 * retire zeroes it before freeing. Then the allocator may re-carve emptied superblocks for other
 * size classes ({@link FloeAllocator.Builder#recarveEmptySuperblocks}): a stale pointer whose
 * position is no longer a block start fails the geometry check, and one that lands on a block
 * start of the new geometry finds either a header with a newer version or bytes that are not a
 * header, which would have to match 64 random bits and the version by chance.
 *
 * <h2>Operations and their orderings</h2>
 * <ul>
 *   <li><b>locate</b> (every operation): the pointer must not carry the deleted mark, its version
 *       must not be 0, and its header offset must be a block start whose block holds the header
 *       and the length found there ({@link FloeAllocator#blockSizeAt}). So a stale or random
 *       {@code long} can never produce a view outside one real block, and never outside the
 *       region.</li>
 *   <li><b>read</b>: acquire-load the header and match it against the pointer; run the reader on a
 *       read-only view of exactly {@code length} bytes; {@link VarHandle#loadLoadFence()} so the
 *       reader's loads complete before the validating load; re-load the header and require it
 *       unchanged. Readers write nothing shared (invariant 4). If the slice was deleted or reused
 *       at any point before the second load, that load sees a different header word and the read
 *       fails, discarding the reader's result (or exception).</li>
 *   <li><b>write</b>: publish the header offset in a hazard slot with one CAS (claim + publish, a
 *       full fence: the paper's TAP entry and its fence), then volatile-load the header and match;
 *       run the writer; clear the slot with a release store (the writer's stores happen before
 *       the slot is seen empty).</li>
 *   <li><b>delete</b>: CAS the header's deleted bit (exactly one of racing deletes wins); the
 *       winner appends the header offset to a release list ({@link RetireBatches}).</li>
 *   <li><b>retire</b> (when a batch of N deletes is full, on whichever thread seals it):
 *       advance the era with an atomic increment (full fence) if the batch holds a slice born in
 *       the current era, else issue a full fence ({@link #seal}); snapshot the hazard slots once,
 *       free every slice of the batch and of the limbo (slices earlier drains kept) that no slot
 *       holds, and park the held ones for later drains ({@link RetiringSomar}, shared with the
 *       baselines).</li>
 *   <li><b>allocate</b>: take a block, write the header with the current era as version
 *       (release store), return the pointer.</li>
 * </ul>
 *
 * <h2>Why it is correct</h2>
 * <b>Safety</b> (no operation writes a retired slice or returns a value read from one). A retired
 * slice had its deleted bit set by a CAS that happens-before the retire (the drainer acquires the
 * batch entry). A read whose second header load comes after that CAS in the synchronization order
 * sees the deleted bit or a newer version and fails; one whose second load comes before it saw
 * the slice live throughout its data loads (they precede the load fence), so its result belongs
 * to this incarnation. A write protects before it validates and the retire advances the era
 * (fence) before it scans: either the scan sees the slot and keeps the slice, or the write's
 * validation load follows the delete CAS and fails (Dekker through two full fences). A freed slice
 * is reallocated only after the era advanced past every version it had, so reallocation always
 * changes the version (modulo the 2^27 wrap discussed in {@link SafePointer}).
 * <br><b>Lock-freedom</b>: every operation finishes in a bounded number of its own steps (the
 * delete CAS only fails when another delete succeeded; hazard slots grow instead of waiting;
 * release-list appends are one increment and one store; a stalled sealer is helped).
 * <br><b>Robustness</b>: a stalled writer holds one hazard slot, so one slice; a thread stalled
 * while deleting holds back at most the slice it was appending; every full batch is drained by
 * whoever seals it, so no other memory waits for a stalled thread.
 */
public final class Nova extends RetiringSomar {
    /** Default release-list batch: the paper retires after adding 1000 slices. */
    public static final int DEFAULT_BATCH = 1000;
    /**
     * Largest release-list batch (of Nova and the baselines): each instance keeps one array of
     * {@code batch} references per retire stripe (four stripes per core, 8 to 64), allocated
     * when it is built.
     */
    public static final int MAX_BATCH = 1 << 16;
    /**
     * Largest slice: a slice and its 8-byte header must fit the largest size-class block. In
     * magic-number mode the header takes 16 bytes, so the largest slice is 8 bytes smaller:
     * {@link #maxSlice()} gives the instance's.
     */
    public static final long MAX_SLICE = SizeClasses.MAX_SMALL - 8;


    /**
     * Nova on {@code allocator} with the {@link #DEFAULT_BATCH}.
     *
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if its region is larger than safe pointers address
     *                                  ({@link SafePointer#MAX_OFFSET})
     */
    public Nova(FloeAllocator allocator) {
        this(allocator, DEFAULT_BATCH);
    }

    /**
     * Nova on {@code allocator} with release-list batches of {@code batch} deletes.
     *
     * @param batch deletes per release-list batch (Nova's N: one era advance per batch), 1 to
     *              {@link #MAX_BATCH}
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if {@code batch} is out of range, or the region is larger
     *                                  than safe pointers address
     */
    public Nova(FloeAllocator allocator, int batch) {
        this(allocator, batch, false);
    }

    /**
     * Nova on {@code allocator}, with or without magic numbers. Without them the allocator must
     * serve this layer alone: a block it hands to someone else holds bytes that a stale safe
     * pointer to that position would take for a header.
     *
     * @param batch       deletes per release-list batch (Nova's N: one era advance per batch), 1
     *                    to {@link #MAX_BATCH}
     * @param magicNumbers magic-number mode (Nova paper, appendix B): every header starts with a
     *                    64-bit random magic, zeroed when the slice is freed, and every access
     *                    checks it. A stale pointer into memory that no longer holds a Nova header
     *                    (an emptied superblock re-carved for another size class, see
     *                    {@link FloeAllocator.Builder#recarveEmptySuperblocks}, or a block now used
     *                    outside Nova) then fails unless 64 random bits and the version match by
     *                    chance. Costs 8 bytes per slice.
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if {@code batch} is out of range, or the region is larger
     *                                  than safe pointers address
     */
    public Nova(FloeAllocator allocator, int batch, boolean magicNumbers) {
        super(allocator, "Nova", batch, magicNumbers);
    }

    /**
     * Allocates a private slice of {@code length} data bytes that owns an <em>attached run</em>:
     * an allocator block of at least {@code runBytes} (any size the allocator accepts; meant for
     * payloads beyond the largest slice) that lives and dies with the slice. The run is always a
     * large run of the allocator (a page multiple above {@link SizeClasses#MAX_SMALL} bytes, even
     * for a smaller {@code runBytes}): never a size-class block, where a stale safe pointer could
     * take its bytes for a slice header. The slice is an ordinary Nova slice (read,
     * write, delete, validate as usual); only the run's memory is elsewhere, so a structure that
     * keeps its own concurrency control in the slice can hold payloads of any size. The run's
     * offset is kept in the block after the slice's data, where no view of the slice reaches
     * ({@link #runOf}); when the slice's block is freed (after its delete, once no hazard slot
     * holds it: the same rule as for the slice itself), the run is freed with it. So whoever may
     * still write the slice may still write the run, and a reader that validates the slice after
     * reading the run has read the run of a live incarnation.
     *
     * <p>The run's contents are unspecified, like any fresh block. Its offset is fixed for the
     * life of the slice.
     *
     * @throws IllegalArgumentException if {@code length} leaves no room for the run word in the
     *                                  largest block, or {@code runBytes} is not a valid allocation
     * @throws dev.floe.memory.FloeOutOfMemoryException if the budget is exhausted, also after a
     *                                  {@link #reclaimNow} as {@link #allocate} (nothing is left
     *                                  allocated)
     */
    public long allocateWithRun(long length, long runBytes) {
        try {
            return access.allocateWithRun(length, runBytes);
        } catch (dev.floe.memory.FloeOutOfMemoryException full) { // see allocate
            reclaimNow();
            return access.allocateWithRun(length, runBytes);
        }
    }

    /**
     * The region offset of the attached run of the slice described by {@code stamp} (from
     * {@link #beginRead} or {@link #beginReadOwned}), or 0 if it has none. Like any optimistic
     * load, meaningful only once the stamp is validated, or for a slice the caller owns or
     * protects.
     */
    public long runOf(long ptr, long stamp) {
        return access.runOf(ptr, stamp);
    }

    /** Whether a stamp describes a slice with an attached run ({@link #allocateWithRun}). */
    public static boolean hasRun(long stamp) {
        return SliceHeader.hasRun(stamp);
    }

    /** Whether this instance runs in magic-number mode. */
    public boolean magicNumbers() {
        return access.magicNumbers();
    }

    @Override
    public <R> R readOr(long ptr, SliceReader<R> reader, R onFailure) {
        Objects.requireNonNull(reader, "reader");
        long h = access.liveHeaderAcquire(ptr);
        if (h == 0) return onFailure;
        MemorySegment slice = access.stateAndData(ptr, h); // one segment for the data and the check
        R r;
        try {
            r = reader.read(SliceAccess.dataOf(slice));
        } catch (Throwable e) { // also Errors: garbage can make a reader allocate a huge array or recurse
            VarHandle.loadLoadFence(); // LoadLoad, as below: a failure of a reused slice's bytes is discarded
            if (!access.unchangedIn(slice, ptr, h)) return onFailure; // it read a reused slice
            throw e;
        }
        VarHandle.loadLoadFence(); // LoadLoad: the reader's loads before the validating load
        return access.unchangedIn(slice, ptr, h) ? r : onFailure;
    }

    @Override
    public <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure) {
        Objects.requireNonNull(writer, "writer");
        if (cannotPublish(ptr)) return onFailure; // the block lookup comes once, in the validation
        int slot = slots.protect(SafePointer.headerOffset(ptr)); // CAS: claim + publish, full fence
        try {
            long h = access.liveHeaderVolatile(ptr);
            if (h == 0) return onFailure;
            return writer.write(access.view(ptr, h), param);
        } finally {
            slots.clear(slot); // release: the writer's stores before the slot reads empty
        }
    }

    // ---- Lambda-free access for data structures built on Nova (the map layer) ----------------
    //
    // The same protocol as readOr/writeOr, split into steps so that a hot loop (a binary search
    // over keys, a value read) needs neither a reader object nor a view it does not ask for:
    //
    //   long stamp = nova.beginRead(ptr);            // 0: not live
    //   ... read through nova.readView(ptr, stamp) or nova.region() at nova.dataOffset(ptr) ...
    //   if (!nova.validate(ptr, stamp)) retry;         // load fence, then the header re-check
    //
    //   int slot = nova.protect(ptr);                  // -1: not live; else protected and valid
    //   try { ... write through nova.writeView(ptr, nova.liveStamp(ptr)) ... } finally { nova.unprotect(slot); }
    //
    // Offsets into region() outside [dataOffset, dataOffset + length(stamp)) are the caller's
    // bug; the views are bounded, raw region access is not (it is meant for Floe's own layers).

    /**
     * Begins an optimistic read: the slice's current state word (acquire load) if {@code ptr}
     * names a live slice, else 0. Pair with {@link #validate} after the data loads.
     */
    public long beginRead(long ptr) {
        return access.liveHeaderAcquire(ptr);
    }

    /**
     * Like {@link #beginRead}, but also for a slice that was deleted and not yet reused: its state
     * word (with the deleted bit, see {@link #isDeletedStamp}) or 0 once the block was reused.
     * A structure that leaves a note in a slice before deleting it (a forwarding pointer) reads
     * the note this way and {@link #validate}s after.
     */
    public long beginReadAny(long ptr) {
        return access.incarnationHeaderAcquire(ptr);
    }

    /**
     * {@link #beginReadAny} for a pointer this caller got from {@link #allocate} and stored itself
     * (a data structure's own entries; never a pointer from outside): skips the block-geometry
     * lookup when the allocator keeps block positions stable, because such a pointer always
     * names a real block start of its size. A forged pointer must go through
     * {@link #beginReadAny}, which checks it.
     */
    public long beginReadOwned(long ptr) {
        return access.ownedIncarnationHeaderAcquire(ptr);
    }

    /**
     * For an owned pointer (see {@link #beginReadOwned}): whether its slice is live right now
     * (neither deleted nor its block reused), from one <em>plain</em> load of the header. For
     * structures that end an optimistic read with this check instead of {@link #validate}: the
     * caller orders the loads it validates before this one (an acquire load or a fence), and
     * must know that the incarnation began before those loads (it acquired the pointer from
     * where it was published after {@link #allocate}). A live header after the loads then means
     * the incarnation was live throughout them, because a version names one incarnation and a
     * deleted incarnation never becomes live again.
     */
    public boolean isLiveOwned(long ptr) {
        long h = access.ownedLiveHeaderPlain(ptr);
        return h != 0;
    }

    /**
     * A view of the block an owned pointer names (see {@link #beginReadOwned}): the slice header
     * at 0, then the first {@code dataLength} bytes of its data from {@link #headerBytes()} on.
     * Raw, like {@link #region()}: for Floe's own layers, whose hot paths read a few words of one
     * slice and end with the header check ({@link #liveHeaderExpectation}, {@link #isLiveHeader})
     * through the same view (one bounds and liveness check for all of them). Nothing is
     * validated here.
     */
    public MemorySegment blockView(long ptr, long dataLength) {
        return access.blockView(ptr, dataLength);
    }

    /**
     * For an owned pointer: what its header must hold while its incarnation is live, computed
     * from the pointer alone (no memory touched), or 0 when the header alone cannot tell (then
     * use {@link #isLiveOwned(long)}). A hot path takes it before its loads and fence and then
     * checks the header word it loads last, through {@link #blockView} at offset 0, with
     * {@link #isLiveHeader}: the same check as {@link #isLiveOwned(long)}, with nothing to load
     * from this object after the fence.
     */
    public long liveHeaderExpectation(long ptr) {
        return access.ownedLiveExpectation(ptr);
    }

    /** Whether header word {@code header} matches a non-zero {@link #liveHeaderExpectation}. */
    public static boolean isLiveHeader(long header, long expectation) {
        return SliceHeader.liveAs(header, expectation);
    }

    /** Whether a stamp from {@link #beginReadAny} describes a deleted slice. */
    public static boolean isDeletedStamp(long stamp) {
        return SliceHeader.isDeleted(stamp);
    }

    /**
     * Ends an optimistic read begun with {@link #beginRead} (or {@link #beginReadAny},
     * {@link #beginReadOwned}): a load fence (the data loads before the re-check), then whether
     * the slice was neither deleted nor reused since. A stamp of 0 (the pointer named no slice)
     * never validates, and then no memory is touched.
     */
    public boolean validate(long ptr, long stamp) {
        VarHandle.loadLoadFence();
        return stamp != 0 && access.unchanged(ptr, stamp); // callers branch on 0 first: the JIT folds it
    }

    /** Length of the slice data described by a non-zero stamp. */
    public static long stampLength(long stamp) {
        return SliceHeader.length(stamp);
    }

    /** Region offset of the data of the slice {@code ptr} names (no check: validate around it). */
    public long dataOffset(long ptr) {
        return access.dataOffset(ptr);
    }

    /** Bytes in front of every slice's data: 8, or 16 in magic-number mode. */
    public int headerBytes() {
        return access.headerBytes();
    }

    /** Bytes in front of every slice's data in a Nova with or without magic numbers: 8, or 16. */
    public static int headerBytes(boolean magicNumbers) {
        return SliceAccess.headerBytes(magicNumbers);
    }

    /**
     * A read-only view bounded to the slice data described by {@code stamp}, a non-zero stamp
     * from {@link #beginRead} (or its variants) of this pointer. Raw, like {@link #region()}: any
     * other stamp gives a view of the length it encodes, inside the region but not the slice.
     */
    public MemorySegment readView(long ptr, long stamp) {
        return access.readOnlyView(ptr, stamp);
    }

    /**
     * A writable view bounded to the slice data described by {@code stamp} (see
     * {@link #readView}), for a slice the caller protects ({@link #protect}) or owns.
     */
    public MemorySegment writeView(long ptr, long stamp) {
        return access.view(ptr, stamp);
    }

    /**
     * The write protocol's entry: publishes the slice in a hazard slot (one CAS, a full fence),
     * then validates. Returns the slot for {@link #unprotect}, or -1 (nothing held) if {@code ptr}
     * does not name a live slice. While protected, the slice is not freed, whatever deletes it.
     */
    public int protect(long ptr) {
        if (cannotPublish(ptr)) return -1;
        return publishAndValidate(ptr, false);
    }

    /**
     * Whether {@code ptr} fails the checks that touch no memory: deleted mark, version 0, header
     * offset 0 (no block starts there, and a hazard slot holding 0 reads as empty). The write
     * paths check only this before the hazard publication; the validation after it looks the
     * block up (once) and refuses a pointer that names no block. A forged pointer's slot holds
     * its offset until it is cleared a few instructions later, which at most delays the free of
     * a slice with that header offset to a later pass.
     */
    private static boolean cannotPublish(long ptr) {
        return SafePointer.cannotBeLive(ptr) || SafePointer.headerOffset(ptr) == 0;
    }

    /**
     * {@link #protect} for a pointer this caller got from {@link #allocate} and stored itself
     * (see {@link #beginReadOwned}): the same hazard publication and validation, without the
     * block-geometry lookups.
     */
    public int protectOwned(long ptr) {
        if (cannotPublish(ptr)) return -1;
        return publishAndValidate(ptr, true);
    }

    /**
     * {@link #protect}'s steps after the pointer check: publish the header offset in a hazard slot
     * (one CAS, a full fence), then validate the header (volatile load; for an {@code owned}
     * pointer without the block-geometry lookups). Returns the slot, or -1 with the slot cleared
     * if the slice is not live; an exception from the load (the region closed meanwhile, or a
     * forged owned pointer beyond it) gives the slot back before it propagates.
     */
    private int publishAndValidate(long ptr, boolean owned) {
        int slot = slots.protect(SafePointer.headerOffset(ptr));
        long h;
        try {
            h = owned ? access.ownedLiveHeaderVolatile(ptr) : access.liveHeaderVolatile(ptr);
        } catch (RuntimeException | Error e) {
            slots.clear(slot);
            throw e;
        }
        if (h == 0) {
            slots.clear(slot);
            return -1;
        }
        return slot;
    }

    /**
     * Ends a protection from {@link #protect} or {@link #protectOwned} (release store). The -1
     * they return when they protected nothing is ignored, so a {@code finally} may call it either
     * way. Any other value must be a slot this thread holds and has not yet unprotected: another
     * thread's slot would lose its protection (its slice could then be freed under its writer).
     */
    public void unprotect(int slot) {
        if (slot >= 0) slots.clear(slot);
    }

    /**
     * The live state word of a slice the caller protects or owns (plain load), or 0 if it was
     * deleted meanwhile (the view is still safe to use while protected).
     */
    public long liveStamp(long ptr) {
        // plain: protect's volatile load (or ownership) already saw this incarnation's header; a
        // racing delete CAS may or may not be seen, and either answer is allowed here
        return access.liveHeaderPlain(ptr);
    }

    /** The region every slice of this instance lives in. */
    public Region region() {
        return access.region;
    }

    /**
     * Nova advances the era only when it must. The era exists so that a freed block is reissued
     * with a version it never had; a block born in an earlier era than the current one already
     * gets a different version from any reallocation (which reads the clock after taking the
     * block, so at least the current era). Only a batch holding a slice born in the current era
     * needs the increment. So long-lived data costs no eras, and versions wrap only under churn of
     * slices deleted within the era they were born in (docs/reclaim.md). Without the increment,
     * a full fence keeps the batch's deletes ordered before the hazard-slot scan, as the
     * increment did: the rest of the safety argument is unchanged.
     */
    @Override
    long seal(long[] refs, int count) {
        long now = clock.current();
        int current = EraClock.versionOf(now);
        for (int i = 0; i < count; i++) {
            if (access.retiredVersion(refs[i]) == current) return clock.advance() - 1;
        }
        VarHandle.fullFence(); // StoreLoad: the deletes (acquired with the batch) before the scan
        return now;
    }

    /** Nova's rule: free every slice no writer's hazard slot holds (the era plays no part). */
    @Override
    int release(long sealed, long[] refs, int count, HazardSnapshot held) {
        int kept = 0;
        for (int i = 0; i < count; i++) { // refs[0..kept): held; refs[kept..i): to free
            long r = refs[i];
            if (held.contains(r)) {
                refs[i] = refs[kept];
                refs[kept++] = r;
            }
        }
        access.freeAll(refs, kept, count);
        return kept;
    }

    /** The current era. */
    public long era() {
        return clock.current();
    }
}
