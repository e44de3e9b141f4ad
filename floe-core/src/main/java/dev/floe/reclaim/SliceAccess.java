package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import dev.floe.memory.SizeClasses;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * What every SOMAR scheme does the same way, whatever makes its reclamation safe: lay a slice
 * out, locate and validate a safe pointer, build bounded views, set the deleted bit. The
 * schemes ({@link Nova}, {@link EpochSomar}, {@link HazardErasSomar}, {@link GrowOnlySomar})
 * differ only in what they do around these steps (optimistic re-validation, a hazard slot, an
 * announced epoch or era) and in when a deleted block goes back to the allocator.
 *
 * <h2>Layout</h2>
 * A slice is one allocator block: an optional 8-byte magic (Nova's magic-number mode, paper
 * appendix B), the 8-byte state word ({@link SliceHeader}: version, deleted bit, length), then
 * the data. The safe pointer ({@link SafePointer}) names the block start.
 *
 * <h2>Validation ("locate")</h2>
 * Before any memory is touched: the pointer's deleted mark must be clear, its version non-zero,
 * and its header offset a block start ({@link FloeAllocator#blockSizeAt}, 0 otherwise). Then
 * the state word must match the pointer (version and deleted bit), header + length must fit the
 * block, and in magic mode the magic must be in place. So a stale, forged or random {@code long}
 * never yields a view outside one real block (ARCHITECTURE.md invariants 2, 3 and 6).
 *
 * <h2>One version clock per allocator</h2>
 * Versions come from an {@link EraClock} shared by every scheme instance on the same allocator
 * ({@link #clock}): a block freed by one instance and reallocated by another must still get a
 * new version, or a stale pointer of the first would equal the second's pointer bit for bit
 * and validate against its slice. Per-instance clocks all start at 1, so they collide at once.
 * The schemes use this clock as their era / epoch too (advancing it more often only costs
 * versions, which wrap after 2^27 advances; see {@link SafePointer}).
 *
 * <p>The {@code liveHeader*} methods return the validated state word, or 0 when the pointer does
 * not name a live slice: version 0 is never issued, so 0 is never a valid state word. Their
 * suffix names the memory ordering of the load; the caller picks the one its protocol needs.
 */
final class SliceAccess {
    /** Clocks by allocator: weak keys, so a closed and dropped allocator takes its clock along. */
    private static final Map<FloeAllocator, EraClock> CLOCKS = Collections.synchronizedMap(new WeakHashMap<>());

    final FloeAllocator allocator;
    final Region region;
    /** The version clock of {@link #allocator}, shared by every scheme instance on it. */
    final EraClock clock;
    /** The random magic every live header carries in magic-number mode, else 0. */
    private final long magic;
    /**
     * Whether an owned pointer's header can be checked by its version alone: block starts never
     * change size (the allocator does not re-carve superblocks) and there is no magic to check.
     * Otherwise the {@code owned*} methods take the full validation.
     */
    private final boolean ownedByVersion;
    /** Offset of the state word in the header: 0, or 8 behind the magic. */
    private final long state;
    /** Header bytes in front of the data: 8, or 16 with the magic. */
    private final long headerBytes;

    /** @param scheme the scheme's name, for the error message when the region is too large */
    SliceAccess(FloeAllocator allocator, String scheme, boolean magicNumbers) {
        Objects.requireNonNull(allocator, "allocator");
        if (allocator.isClosed()) throw new IllegalStateException(scheme + " needs an open allocator; '" + allocator.name() + "' is closed");
        if (allocator.region().size() > SafePointer.MAX_OFFSET) {
            throw new IllegalArgumentException(scheme + " addresses regions up to "
                    + (SafePointer.MAX_OFFSET >>> 30) + " GiB; this one has "
                    + (allocator.region().size() >>> 30) + " GiB");
        }
        this.allocator = allocator;
        this.region = allocator.region();
        this.clock = CLOCKS.computeIfAbsent(allocator, a -> new EraClock());
        this.magic = magicNumbers ? randomMagic() : 0;
        this.ownedByVersion = !allocator.recarvesEmptySuperblocks() && !magicNumbers;
        this.state = magicNumbers ? 8 : 0;
        this.headerBytes = headerBytes(magicNumbers);
    }

    /** The state word, preceded in magic-number mode by the 8-byte magic. */
    static int headerBytes(boolean magicNumbers) {
        return magicNumbers ? 16 : 8;
    }

    /** Smallest attached run: one byte beyond the largest size class, so always a large run. */
    private static final long MIN_RUN = SizeClasses.MAX_SMALL + 1;

    /** Largest slice: the largest size-class block minus the header. */
    long maxSlice() {
        return SizeClasses.MAX_SMALL - headerBytes;
    }

    int headerBytes() {
        return (int) headerBytes;
    }

    boolean magicNumbers() {
        return magic != 0;
    }

    /**
     * Takes a block and publishes its header with the allocator's clock's current version (release store: the
     * magic and the header are visible to whoever acquires the pointer's header). Returns the
     * safe pointer.
     *
     * <p>The clock is read <em>after</em> the block is taken: the block may have been freed by a
     * drain just after it advanced the clock, and the allocator's free-to-allocate hand-over
     * orders that advance before this read, so the new version differs from the old one. Reading
     * it before the allocation could return the era the old incarnation was born in.
     */
    long allocate(long length) {
        if (length < 0 || length > maxSlice()) {
            throw new IllegalArgumentException("slice length " + length + " is not in [0, " + maxSlice() + "]");
        }
        long hdr = allocator.allocate(length + headerBytes);
        int version = clock.version(); // after the allocation: see above
        if (magic != 0) region.setLongPlain(hdr, magic); // published by the release store below
        region.setLongRelease(hdr + state, SliceHeader.of(version, length));
        return SafePointer.of(hdr, version);
    }

    /**
     * {@link #allocate} with an attached run ({@link SliceHeader}): takes a block of
     * {@code runBytes} first, then the slice's block with room for the run word after the data,
     * writes the run's offset there and publishes the header with the run bit. If the second
     * allocation fails the run is freed again: nothing is left allocated.
     *
     * <p>The run is always a large run of the allocator (at least {@link SizeClasses#MAX_SMALL}
     * + 1 bytes), never a size-class block: a stale safe pointer whose block was reused as a run
     * would otherwise take the run's first word, the user's bytes, for a header (invariant 2
     * assumes every block start in the superblocks holds one) and read, write or delete through
     * it. Large runs are never blocks to {@link FloeAllocator#blockSizeAt}.
     */
    long allocateWithRun(long length, long runBytes) {
        if (length < 0 || length > maxSlice() - 8) {
            throw new IllegalArgumentException("slice length " + length + " is not in [0, " + (maxSlice() - 8) + "]");
        }
        if (runBytes <= 0 || runBytes > allocator.maxAllocation()) {
            throw new IllegalArgumentException("run of " + runBytes + " bytes is not in [1, " + allocator.maxAllocation() + "]");
        }
        long run = allocator.allocate(Math.max(runBytes, MIN_RUN));
        long hdr;
        try {
            hdr = allocator.allocate(length + 8 + headerBytes);
        } catch (RuntimeException | Error e) {
            allocator.free(run);
            throw e;
        }
        int version = clock.version(); // after the allocation: see allocate
        if (magic != 0) region.setLongPlain(hdr, magic);
        region.setLongPlain(hdr + headerBytes + length, run); // the run word (runWordAt); published by the release store below
        region.setLongRelease(hdr + state, SliceHeader.of(version, length) | SliceHeader.RUN);
        return SafePointer.of(hdr, version);
    }

    /**
     * The attached run of the slice whose live (or owned, retired) state word is {@code h}, or 0
     * if it has none. A plain load: the word was written before the header's release store.
     */
    long runOf(long ptr, long h) {
        return SliceHeader.hasRun(h) ? region.getLongPlain(runWordAt(SafePointer.headerOffset(ptr), h)) : 0;
    }

    /** Where the run word of the slice at header offset {@code hdr} with state word {@code h} is: right after its data. */
    private long runWordAt(long hdr, long h) {
        return hdr + headerBytes + SliceHeader.length(h);
    }

    /**
     * The size of the block {@code ptr}'s header starts, or 0 if the pointer cannot name a live
     * slice (deleted mark, version 0, not a block start). Touches no memory.
     */
    int blockOf(long ptr) {
        if (SafePointer.cannotBeLive(ptr)) return 0;
        return allocator.blockSizeAt(SafePointer.headerOffset(ptr));
    }

    /** Whether state word {@code h} is {@code ptr}'s live incarnation, fits the block, has its magic. */
    private boolean valid(long h, long ptr, int block) {
        return SliceHeader.matches(h, ptr) && SliceHeader.blockBytes(h) + headerBytes <= block
                && (magic == 0 || region.getLongPlain(SafePointer.headerOffset(ptr)) == magic);
    }

    /** The live state word (acquire load), or 0. */
    long liveHeaderAcquire(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return 0;
        // acquire: pairs with allocate's release store (magic, run word, header), and keeps the
        // optimistic read's data loads after this first load (the seqlock's opening read)
        long h = region.getLongAcquire(SafePointer.headerOffset(ptr) + state);
        return valid(h, ptr, block) ? h : 0;
    }

    /**
     * The state word of the incarnation {@code ptr} names, deleted or not (acquire load), or 0 if
     * the block was reused or the pointer is invalid. A deleted block keeps its header and data
     * until it is reallocated, so a caller that validates with {@link #unchanged} afterwards reads
     * the last bytes that incarnation held (a map reads a forwarding note left in a retired value).
     */
    long incarnationHeaderAcquire(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return 0;
        long h = region.getLongAcquire(SafePointer.headerOffset(ptr) + state);
        return valid(h & ~SliceHeader.DELETED, ptr, block) ? h : 0;
    }

    /**
     * {@link #incarnationHeaderAcquire} for a pointer the caller obtained from {@link #allocate}
     * itself and stored (never forged): with stable superblock geometry (no re-carving, invariant
     * 3) its header offset is a block start of the size it was allocated with for the life of the
     * region, so the geometry lookup is skipped; the version match alone tells whether the block
     * still holds this incarnation (whose length was checked when it was allocated).
     */
    long ownedIncarnationHeaderAcquire(long ptr) {
        if (!ownedByVersion) return incarnationHeaderAcquire(ptr);
        if (SafePointer.cannotBeLive(ptr)) return 0;
        long h = region.getLongAcquire(SafePointer.headerOffset(ptr) + state);
        return SliceHeader.matches(h & ~SliceHeader.DELETED, ptr) ? h : 0;
    }

    /** {@link #liveHeaderPlain} for an owned pointer (see {@link #ownedIncarnationHeaderAcquire}). */
    long ownedLiveHeaderPlain(long ptr) {
        if (!ownedByVersion) return liveHeaderPlain(ptr);
        if (SafePointer.cannotBeLive(ptr)) return 0;
        // plain: the closing load of an optimistic read; the caller ordered its loads before it
        // (acquire or fence, see Nova#isLiveOwned)
        long h = region.getLongPlain(SafePointer.headerOffset(ptr) + state);
        return SliceHeader.matches(h, ptr) ? h : 0;
    }

    /**
     * What {@code ptr}'s state word must hold while its incarnation is live, for
     * {@link SliceHeader#liveAs}: computed from the pointer alone, so a caller can take it
     * before a fence and check a header word loaded after it with no field of this class in
     * between. 0 when the pointer cannot be live (deleted mark, version 0) or when this check is
     * not enough (magic-number mode, or block positions that may change): use
     * {@link #ownedLiveHeaderPlain} then.
     */
    long ownedLiveExpectation(long ptr) {
        if (!ownedByVersion) return 0;
        if (SafePointer.cannotBeLive(ptr)) return 0;
        return SliceHeader.expectedState(ptr);
    }

    /**
     * A view of the block {@code ptr} names: its header and the first {@code dataLength} data
     * bytes (no check: the caller validates what it reads through it).
     */
    MemorySegment blockView(long ptr, long dataLength) {
        return region.slice(SafePointer.headerOffset(ptr), headerBytes + dataLength);
    }

    /** {@link #liveHeaderVolatile} for an owned pointer (see {@link #ownedIncarnationHeaderAcquire}). */
    long ownedLiveHeaderVolatile(long ptr) {
        if (!ownedByVersion) return liveHeaderVolatile(ptr);
        if (SafePointer.cannotBeLive(ptr)) return 0;
        long h = region.getLongVolatile(SafePointer.headerOffset(ptr) + state);
        return SliceHeader.matches(h, ptr) ? h : 0;
    }

    /**
     * The live state word (volatile load: after a hazard publication, the Dekker-style validation
     * every protecting scheme relies on), or 0.
     */
    long liveHeaderVolatile(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return 0;
        long h = region.getLongVolatile(SafePointer.headerOffset(ptr) + state);
        return valid(h, ptr, block) ? h : 0;
    }

    /** The live state word (plain load: privatized operations), or 0. */
    long liveHeaderPlain(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return 0;
        long h = region.getLongPlain(SafePointer.headerOffset(ptr) + state);
        return valid(h, ptr, block) ? h : 0;
    }

    /**
     * Optimistic post-validation: whether the state word (and magic) still read as {@code h}
     * (plain loads; the caller fences the data loads before this).
     */
    boolean unchanged(long ptr, long h) {
        // A delete sets the deleted bit and a reuse (after it) writes a new version, so a slice
        // deleted since h or reused before this load (after the caller's fence) no longer reads h.
        long hdr = SafePointer.headerOffset(ptr);
        return region.getLongPlain(hdr + state) == h && (magic == 0 || region.getLongPlain(hdr) == magic);
    }

    /**
     * A view of the state word and the data of the slice whose live state word is {@code h}:
     * {@code [state word, end of data)}. A read that takes its data view from this one
     * ({@link #dataOf}) and re-checks the state word through it ({@link #unchangedIn}) reads
     * everything through one segment; when the read is inlined that segment is scalar-replaced,
     * so its base and bounds stay in registers across the read's load fence instead of being
     * reloaded from the region's segment for the check.
     */
    MemorySegment stateAndData(long ptr, long h) {
        return region.slice(SafePointer.headerOffset(ptr) + state, 8 + SliceHeader.length(h));
    }

    /** The read-only data view inside a {@link #stateAndData} view. */
    static MemorySegment dataOf(MemorySegment stateAndData) {
        return stateAndData.asSlice(8).asReadOnly();
    }

    /** {@link #unchanged} through the {@link #stateAndData} view of {@code ptr}. */
    boolean unchangedIn(MemorySegment stateAndData, long ptr, long h) {
        return stateAndData.get(ValueLayout.JAVA_LONG, 0) == h
                && (magic == 0 || region.getLongPlain(SafePointer.headerOffset(ptr)) == magic);
    }

    /** Region offset of the data of the slice whose header {@code ptr} names. */
    long dataOffset(long ptr) {
        return SafePointer.headerOffset(ptr) + headerBytes;
    }

    /** A writable view of exactly the data of the slice whose live state word is {@code h}. */
    MemorySegment view(long ptr, long h) {
        return region.slice(dataOffset(ptr), SliceHeader.length(h));
    }

    /** A read-only view of exactly the data of the slice whose live state word is {@code h}. */
    MemorySegment readOnlyView(long ptr, long h) {
        return view(ptr, h).asReadOnly();
    }

    /**
     * Sets the deleted bit with a CAS; true for exactly one of racing calls on the same live
     * slice (a failed CAS re-reads: it only fails when another delete won or the pointer is stale).
     */
    boolean markDeleted(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return false;
        long at = SafePointer.headerOffset(ptr) + state;
        while (true) {
            long h = region.getLongVolatile(at);
            if (!valid(h, ptr, block)) return false;
            if (region.compareAndSetLong(at, h, h | SliceHeader.DELETED)) return true; // full fence
        }
    }

    /**
     * Sets the deleted bit of a private slice with the same CAS as {@link #markDeleted}. Throws
     * {@link DeletedSliceException} if {@code ptr} is not live, or another delete won.
     *
     * <p>A private slice needs no atomicity, and this was a plain load and a release store. But a
     * caller that gets the privacy wrong (a {@code delete} through a copy of the pointer racing
     * with this one) then saw both deletes succeed: the slice was retired twice, and the second
     * free threw {@link dev.floe.memory.IllegalFreeException} out of whichever delete drained
     * it (dropping the rest of its batch), or, once the block was reallocated, freed its next
     * incarnation under its owner. With the CAS exactly one of them wins, as for two
     * {@code delete}s, and the other fails cleanly. It costs one uncontended CAS on a rare path
     * (a publication that failed).
     */
    void markDeletedPrivate(long ptr) {
        if (!markDeleted(ptr)) throw new DeletedSliceException(ptr);
    }

    /** Length of the live slice, or -1 if the pointer no longer names one. */
    long length(long ptr) {
        long h = liveHeaderAcquire(ptr);
        return h == 0 ? -1 : SliceHeader.length(h);
    }

    /**
     * The version in the header at {@code hdr} (acquire load). Meaningful for a retired slice the
     * caller owns: a deleted header is not written again until its block is reallocated.
     */
    int retiredVersion(long hdr) {
        return SafePointer.version(region.getLongAcquire(hdr + state));
    }

    /**
     * Returns a retired block to the allocator (magic mode: clears the magic first), and its
     * attached run if it has one. The caller owns the retired block, so its header and run word
     * are still the ones the delete left.
     */
    void free(long hdr) {
        beforeFree(hdr);
        allocator.free(hdr);
    }

    /**
     * {@link #free} for each retired block of {@code hdrs[from..to)}, the blocks in one allocator
     * call ({@link FloeAllocator#free(long[], int, int)}: one cache stripe claim for the batch).
     */
    void freeAll(long[] hdrs, int from, int to) {
        for (int i = from; i < to; i++) beforeFree(hdrs[i]);
        allocator.free(hdrs, from, to);
    }

    /** What freeing a retired block does before the block goes back: its run goes back, and (magic mode) its magic is cleared. */
    private void beforeFree(long hdr) {
        long h = region.getLongPlain(hdr + state); // retired: still this incarnation's (deleted) header
        if (SliceHeader.hasRun(h)) allocator.free(region.getLongPlain(runWordAt(hdr, h)));
        if (magic != 0) region.setLongPlain(hdr, 0); // no header here any more; the free publishes it
    }

    private static long randomMagic() {
        SecureRandom random = new SecureRandom();
        long m;
        do {
            m = random.nextLong();
        } while (m == 0);
        return m;
    }
}
