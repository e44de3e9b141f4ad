package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import dev.floe.memory.SizeClasses;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * Nova: SOMAR with optimistic reads, hazard-slot writes and era-based release lists (Nova paper,
 * section 3), on Floe's allocator.
 *
 * <h2>Layout</h2>
 * A slice is a block from the {@link FloeAllocator}: an 8-byte {@link SliceHeader} (version,
 * deleted bit, length) followed by the data. A {@link SafePointer} packs the header's offset,
 * the version and a deleted bit into one {@code long}. The allocator keeps block positions
 * stable (invariant 3) and never writes into freed blocks, so a stale pointer always lands on a
 * real header, or on zeros once the superblock was released (version 0 never matches).
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
 *       advance the era with an atomic increment (full fence), snapshot the hazard slots, free
 *       every batched slice no slot holds, put the held ones back.</li>
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
public final class Nova implements Somar {
    /** Default release-list batch: the paper retires after adding 1000 slices. */
    public static final int DEFAULT_BATCH = 1000;
    /** Largest slice: a slice and its 8-byte header must fit the largest size-class block. */
    public static final long MAX_SLICE = SizeClasses.MAX_SMALL - 8;

    private final FloeAllocator allocator;
    private final Region region;
    /** Magic-number mode (appendix B): the random magic every live header carries, else 0. */
    private final long magic;
    /** Offset of the state word in a header: 0, or 8 behind the magic. */
    private final long state;
    /** Header bytes in front of the data: 8, or 16 with the magic. */
    private final long headerBytes;
    private final HazardSlots tap;
    private final EraClock era = new EraClock();
    private final RetireBatches releaseLists;

    public Nova(FloeAllocator allocator) {
        this(allocator, DEFAULT_BATCH);
    }

    /** @param batch deletes per release-list batch (Nova's N: one era advance per batch) */
    public Nova(FloeAllocator allocator, int batch) {
        this(allocator, batch, false);
    }

    /**
     * @param batch       deletes per release-list batch (Nova's N: one era advance per batch)
     * @param magicNumbers magic-number mode (Nova paper, appendix B): every header starts with a
     *                    64-bit random magic, zeroed when the slice is freed, and every access
     *                    checks it. A stale pointer into memory that no longer holds a Nova header
     *                    (an emptied superblock re-carved for another size class, see
     *                    {@link FloeAllocator.Builder#recarveEmptySuperblocks}, or a block now used
     *                    outside Nova) then fails unless 64 random bits and the version match by
     *                    chance. Costs 8 bytes per slice.
     */
    public Nova(FloeAllocator allocator, int batch, boolean magicNumbers) {
        if (allocator.region().size() > SafePointer.MAX_OFFSET) {
            throw new IllegalArgumentException("Nova addresses regions up to "
                    + (SafePointer.MAX_OFFSET >>> 30) + " GiB; this one has "
                    + (allocator.region().size() >>> 30) + " GiB");
        }
        this.allocator = allocator;
        this.region = allocator.region();
        this.magic = magicNumbers ? randomMagic() : 0;
        this.state = magicNumbers ? 8 : 0;
        this.headerBytes = magicNumbers ? 16 : 8;
        this.tap = new HazardSlots();
        this.releaseLists = new RetireBatches(batch, RetireBatches.defaultStripes(), this::retire);
    }

    @Override
    public long allocate(long length) {
        if (length < 0 || length > maxSlice()) {
            throw new IllegalArgumentException("slice length " + length + " is not in [0, " + maxSlice() + "]");
        }
        long hdr = allocator.allocate(length + headerBytes);
        int version = era.version();
        if (magic != 0) region.setLongPlain(hdr, magic); // published by the release store below
        region.setLongRelease(hdr + state, SliceHeader.of(version, length));
        return SafePointer.of(hdr, version);
    }

    /**
     * The size of the block {@code ptr}'s header sits at the start of, or 0 if the pointer cannot
     * name a live slice (deleted mark, version 0, not a block start). Touches no memory.
     */
    private int blockOf(long ptr) {
        if (SafePointer.isDeleted(ptr) || SafePointer.version(ptr) == 0) return 0;
        return allocator.blockSizeAt(SafePointer.headerOffset(ptr));
    }

    /**
     * Whether {@code header} (the state word just loaded) is {@code ptr}'s live incarnation, its
     * length fits the block, and — in magic-number mode — the magic is in place.
     */
    private boolean valid(long header, long ptr, int blockSize) {
        return SliceHeader.matches(header, ptr) && SliceHeader.length(header) + headerBytes <= blockSize
                && (magic == 0 || region.getLongPlain(SafePointer.headerOffset(ptr)) == magic);
    }

    /** Largest slice this instance allocates: the largest block minus the header. */
    public long maxSlice() {
        return SizeClasses.MAX_SMALL - headerBytes;
    }

    /** Whether this instance runs in magic-number mode. */
    public boolean magicNumbers() {
        return magic != 0;
    }

    private static long randomMagic() {
        long m;
        do {
            m = new java.security.SecureRandom().nextLong();
        } while (m == 0);
        return m;
    }

    @Override
    public <R> R readOr(long ptr, SliceReader<R> reader, R onFailure) {
        int block = blockOf(ptr);
        if (block == 0) return onFailure;
        long hdr = SafePointer.headerOffset(ptr);
        long h = region.getLongAcquire(hdr + state);
        if (!valid(h, ptr, block)) return onFailure;
        MemorySegment view = region.slice(hdr + headerBytes, SliceHeader.length(h)).asReadOnly();
        R r;
        try {
            r = reader.read(view);
        } catch (RuntimeException e) {
            VarHandle.loadLoadFence();
            if (!unchanged(hdr, h)) return onFailure; // it read a reused slice
            throw e;
        }
        VarHandle.loadLoadFence(); // LoadLoad: the reader's loads before the validating load
        return unchanged(hdr, h) ? r : onFailure;
    }

    /** The post-read validation: the state word (and the magic) as before the read. */
    private boolean unchanged(long hdr, long h) {
        return region.getLongPlain(hdr + state) == h && (magic == 0 || region.getLongPlain(hdr) == magic);
    }

    @Override
    public <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure) {
        int block = blockOf(ptr);
        if (block == 0) return onFailure;
        long hdr = SafePointer.headerOffset(ptr);
        int slot = tap.protect(hdr); // CAS: claim + publish, full fence
        try {
            long h = region.getLongVolatile(hdr + state);
            if (!valid(h, ptr, block)) return onFailure;
            return writer.write(region.slice(hdr + headerBytes, SliceHeader.length(h)), param);
        } finally {
            tap.clear(slot); // release: the writer's stores before the slot reads empty
        }
    }

    @Override
    public boolean delete(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return false;
        long hdr = SafePointer.headerOffset(ptr);
        while (true) {
            long h = region.getLongVolatile(hdr + state);
            if (!valid(h, ptr, block)) return false;
            if (region.compareAndSetLong(hdr + state, h, h | SliceHeader.DELETED)) {
                releaseLists.add(hdr);
                return true;
            }
        }
    }

    @Override
    public <P, R> R writePrivate(long ptr, SliceWriter<P, R> writer, P param) {
        int block = blockOf(ptr);
        long hdr = SafePointer.headerOffset(ptr);
        long h = block == 0 ? 0 : region.getLongPlain(hdr + state);
        if (block == 0 || !valid(h, ptr, block)) throw new DeletedSliceException(ptr);
        return writer.write(region.slice(hdr + headerBytes, SliceHeader.length(h)), param);
    }

    @Override
    public void deletePrivate(long ptr) {
        int block = blockOf(ptr);
        long hdr = SafePointer.headerOffset(ptr);
        long h = block == 0 ? 0 : region.getLongPlain(hdr + state);
        if (block == 0 || !valid(h, ptr, block)) throw new DeletedSliceException(ptr);
        // Still through the release list: the era must advance before the block is reused, or a
        // copy of this pointer would match the next incarnation's version.
        region.setLongRelease(hdr + state, h | SliceHeader.DELETED);
        releaseLists.add(hdr);
    }

    /** Length of the live slice, or -1 if the pointer no longer names one. */
    public long length(long ptr) {
        int block = blockOf(ptr);
        if (block == 0) return -1;
        long h = region.getLongAcquire(SafePointer.headerOffset(ptr) + state);
        return valid(h, ptr, block) ? SliceHeader.length(h) : -1;
    }

    @Override
    public void reclaimNow() {
        releaseLists.drainAll();
    }

    /** The drain of a full release-list batch (the paper's RETIRE, with helping by the sealer). */
    private void retire(long[] refs, int count) {
        era.advance(); // full fence: the deletes in this batch precede the scan below
        long[] held = tap.snapshot();
        int kept = 0;
        for (int i = 0; i < count; i++) {
            long r = refs[i];
            if (HazardSlots.contains(held, r)) {
                refs[kept++] = r;
            } else {
                if (magic != 0) region.setLongPlain(r, 0); // no header here any more; the free publishes it
                allocator.free(r);
            }
        }
        for (int i = 0; i < kept; i++) releaseLists.add(refs[i]);
    }

    /** Deleted slices waiting for reclamation. */
    public long waitingSlices() {
        return releaseLists.waiting();
    }

    /** The current era. */
    public long era() {
        return era.current();
    }

    public FloeAllocator allocator() {
        return allocator;
    }
}
