package dev.floe.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One large range of off-heap memory addressed by {@code long} offsets from its start.
 *
 * <p>Every reference inside Floe is an offset into a region. The region guarantees the
 * <em>readable-after-free</em> invariant (ARCHITECTURE.md, invariant 1) that the Optimistic
 * Access paper adds to LRMalloc and on which Nova's optimistic reads rely: while the region is
 * open, every offset that was ever committed stays readable; {@link #release} gives the physical
 * memory back (reads then return zeros) but never unmaps or protects anything.
 *
 * <p>Two implementations: {@link MappedRegion} (one {@code mmap} reservation, memory returned with
 * {@code madvise}) and {@link ChunkedRegion} (fallback without native access, or when the OS
 * refuses the reservation: chunks from a shared {@code Arena}). Both bound every access: an offset outside the region raises
 * {@link IndexOutOfBoundsException}; a part never committed (say, a superblock not carved yet)
 * reads zeros in a mapped region, whose reservation covers it, and raises
 * {@link IndexOutOfBoundsException} in a chunked one, which has no memory there; any access after
 * {@link #close} raises {@link IllegalStateException}; neither can crash the JVM.
 *
 * <p>Word accessors take an offset that must be 8-byte aligned (else
 * {@link IllegalArgumentException}); their names give their memory ordering, as the
 * {@link VarHandle} access modes do.
 */
public abstract sealed class Region implements AutoCloseable permits MappedRegion, ChunkedRegion {
    /** Long accessor over a segment: coordinates (segment, offset). */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /**
     * {@link #getBits} on a segment: a view of this region's memory (plain load). For hot paths
     * of Floe's own layers that read several words of one block through one view, so that the
     * view's bounds and liveness are checked once and the JIT keeps it in registers.
     */
    public static long bits(MemorySegment s, long offset, int width) {
        return switch (width) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, offset);
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, offset);
            case 8 -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
            default -> throw new IllegalArgumentException("field width " + width + " is not 1, 2, 4 or 8");
        };
    }

    private static final System.Logger LOG = System.getLogger("dev.floe.memory");

    final long size;

    Region(long size) {
        this.size = size;
    }

    /**
     * Opens a region of {@code size} bytes of address space (a multiple of {@code alignment}),
     * whose start is aligned to {@code alignment}: a power of two of at least a page (4096 bytes).
     * {@link RegionMode#AUTO} picks {@code MAPPED} when this class's module has native access and
     * the OS is Linux, else {@code ARENA_CHUNKS}; the check happens before any restricted method is
     * touched.
     *
     * @throws IllegalArgumentException if {@code size} is not a positive multiple of
     *                                  {@code alignment}, or {@code alignment} is not a power of
     *                                  two of at least a page
     * @throws NativeMemoryException    if a mapped region cannot be reserved (in {@code AUTO} mode: for
     *                                  any reason but {@code ENOMEM}, which falls back to
     *                                  {@code ARENA_CHUNKS}; see {@link #open(long, long, RegionMode, ReleaseMethod)})
     */
    public static Region open(long size, long alignment, RegionMode mode) {
        return open(size, alignment, mode, ReleaseMethod.MADVISE);
    }

    /**
     * Opens a region whose emptied superblocks ({@link #releaseEmptySuperblock}) are released with
     * {@code method}. {@link ReleaseMethod#SHARED_FRAME} needs the mode to resolve to
     * {@link RegionMode#MAPPED} (else {@link IllegalArgumentException}); its frame is one
     * {@code alignment} (superblock) long.
     *
     * @throws IllegalArgumentException as {@link #open(long, long, RegionMode)}, and for
     *                                  SHARED_FRAME without a mapped region
     * @throws NativeMemoryException    if a mapped region or its frame cannot be set up
     */
    public static Region open(long size, long alignment, RegionMode mode, ReleaseMethod method) {
        java.util.Objects.requireNonNull(mode, "region mode");
        java.util.Objects.requireNonNull(method, "release method");
        // the mapping's start is rounded up to the alignment with a mask, and the rest unmapped by pages
        if (Long.bitCount(alignment) != 1 || alignment < Libc.PAGE_SIZE) {
            throw new IllegalArgumentException("region alignment " + alignment
                    + " must be a power of two of at least a page (" + Libc.PAGE_SIZE + " bytes)");
        }
        if (size <= 0 || size % alignment != 0) {
            throw new IllegalArgumentException("region size " + size
                    + " must be a positive multiple of " + alignment);
        }
        RegionMode m = mode == RegionMode.AUTO ? detectMode() : mode;
        if (method == ReleaseMethod.SHARED_FRAME && m != RegionMode.MAPPED) {
            throw new IllegalArgumentException("release method SHARED_FRAME needs a MAPPED region (native "
                    + "access on Linux); this one would be " + m);
        }
        Region r = m == RegionMode.MAPPED
                ? reserveOrFallBack(size, alignment, mode, method)
                : ChunkedRegion.open(size, alignment);
        LOG.log(System.Logger.Level.DEBUG, () -> "Floe region opened: " + r.mode() + ", "
                + (size >>> 20) + " MiB of address space"
                + (mode == RegionMode.AUTO ? " (auto-detected)" : ""));
        return r;
    }

    /**
     * A mapped region; in {@link RegionMode#AUTO} with {@link ReleaseMethod#MADVISE}, a chunked
     * one when the OS refuses the address space with {@code ENOMEM} (a {@code ulimit -v}, a
     * container's address-space limit), logged as a WARNING: the library keeps working, and the
     * chunked region's cost (memory back to the OS only at close) is named in the log. An
     * explicit {@link RegionMode#MAPPED}, or SHARED_FRAME, still fails.
     */
    private static Region reserveOrFallBack(long size, long alignment, RegionMode mode, ReleaseMethod method) {
        try {
            return MappedRegion.reserve(size, alignment, method);
        } catch (NativeMemoryException e) {
            if (mode != RegionMode.AUTO || method != ReleaseMethod.MADVISE || e.errno() != Libc.ENOMEM) throw e;
            LOG.log(System.Logger.Level.WARNING, () -> "Floe could not reserve " + (size >>> 20) + " MiB of address "
                    + "space (" + e.getMessage() + "; a ulimit -v?): using ARENA_CHUNKS instead, which returns "
                    + "memory to the OS only when the allocator closes. A smaller regionSize keeps MAPPED; "
                    + "mode(MAPPED) fails instead of falling back.");
            return ChunkedRegion.open(size, alignment);
        }
    }

    /** The mode {@link RegionMode#AUTO} resolves to in this JVM. */
    public static RegionMode detectMode() {
        boolean linux = System.getProperty("os.name", "").toLowerCase().contains("linux");
        return linux && Region.class.getModule().isNativeAccessEnabled()
                ? RegionMode.MAPPED : RegionMode.ARENA_CHUNKS;
    }

    /** Bytes of address space. */
    public final long size() {
        return size;
    }

    /** How this region is backed: {@link RegionMode#MAPPED} or {@link RegionMode#ARENA_CHUNKS}. */
    public abstract RegionMode mode();

    /**
     * A view of {@code [offset, offset+length)}, bounded to exactly that range; it dies with the
     * region. Out of the region (or, chunked, in a part never committed):
     * {@link IndexOutOfBoundsException}; after {@link #close}, every access through the view
     * throws {@link IllegalStateException} (making the view itself may still succeed).
     */
    public abstract MemorySegment slice(long offset, long length);

    /** Plain load of the word at {@code offset} (8-byte aligned, as every word accessor's). */
    public abstract long getLongPlain(long offset);

    /**
     * Plain read of the {@code width}-byte field at {@code offset} (1, 2, 4 or 8 bytes, native
     * order, any alignment, sign-extended): a field of a slice read without building a view of
     * the slice first. The caller bounds the field to its slice; the region bounds it to itself.
     */
    public abstract long getBits(long offset, int width);

    /** Acquire load of the word at {@code offset}. */
    public abstract long getLongAcquire(long offset);

    /** Volatile load of the word at {@code offset}. */
    public abstract long getLongVolatile(long offset);

    /** Plain store of {@code value} into the word at {@code offset}. */
    public abstract void setLongPlain(long offset, long value);

    /** Release store of {@code value} into the word at {@code offset}. */
    public abstract void setLongRelease(long offset, long value);

    /** Volatile store of {@code value} into the word at {@code offset}. */
    public abstract void setLongVolatile(long offset, long value);

    /** CAS of the word at {@code offset} from {@code expected} to {@code value} (volatile semantics); true if it succeeded. */
    public abstract boolean compareAndSetLong(long offset, long expected, long value);

    /** Atomically adds {@code delta} to the word at {@code offset} (volatile semantics); returns the previous value. */
    public abstract long getAndAddLong(long offset, long delta);

    /**
     * Gives the physical memory of {@code [offset, offset+length)} back: the range stays readable
     * and reads return zeros. Offset and length must be page aligned (else
     * {@link IllegalArgumentException}). Mapped regions call {@code madvise(MADV_DONTNEED)} and
     * report its failure with errno ({@link NativeMemoryException}); chunked regions zero-fill.
     */
    public abstract void release(long offset, long length);

    /** {@link #release}'s argument check: inside the region and page aligned. */
    final void checkReleaseRange(long offset, long length) {
        checkRange(offset, length);
        if (((offset | length) & (Libc.PAGE_SIZE - 1)) != 0) {
            throw new IllegalArgumentException("release range must be page aligned: " + offset + "+" + length);
        }
    }

    /** How {@link #releaseEmptySuperblock} gives memory back. */
    public ReleaseMethod releaseMethod() {
        return ReleaseMethod.MADVISE;
    }

    /**
     * Gives back the physical memory of an emptied superblock by the region's
     * {@link #releaseMethod()}; the range stays readable. Default: {@link #release}.
     */
    void releaseEmptySuperblock(long offset, long length) {
        release(offset, length);
    }

    /**
     * Makes a superblock released by {@link #releaseEmptySuperblock} private memory again before
     * the allocator hands out its blocks. Default: nothing to do (released pages fault in afresh).
     */
    void reuseEmptySuperblock(long offset, long length) {
        checkRange(offset, length);
    }

    /** Bytes of this region currently backed by physical memory (mincore, or chunk bytes). */
    public abstract long residentBytes(long from, long to);

    /**
     * Makes {@code [offset, offset+length)} usable before the allocator first hands it out.
     * A no-op for mapped regions (pages fault in on touch); chunked regions allocate chunks.
     *
     * @throws NativeMemoryException if the memory cannot be had (chunked: the arena's
     *                               allocation fails), with nothing committed
     */
    abstract void commit(long offset, long length);

    /**
     * Faults in {@code [offset, offset+length)} ahead of use ({@link FloeAllocator.Builder#preTouch}):
     * writes zeros, so only for memory nothing uses yet.
     */
    abstract void preTouch(long offset, long length);

    /** Granularity in which fresh address ranges for large runs should be committed. */
    abstract long extentGranularity();

    /** Whether a fresh commit at the end of earlier ones is contiguous with them (mapped: yes). */
    abstract boolean growsContiguously();

    /** Whether {@code [a, b)} with {@code a < b} is one contiguous piece of memory. */
    abstract boolean contiguous(long a, long b);

    /** Whether {@link #close} has not been called yet. */
    public abstract boolean isOpen();

    /**
     * A view of {@code slice}, a slice of this region, whose life can end before the region's:
     * for views that must die when their holder lets go (Snowflake's shield views).
     * <ul>
     *   <li>{@link RegionMode#MAPPED}: the view belongs to {@code arena} and keeps the region's
     *       address range mapped until {@code arena} closes, even past {@link #close}, which then
     *       gives every resident page back at once and leaves the unmapping to the last such
     *       arena's close. A view used after the region's close so reads zeros (and a write
     *       commits a page again until that arena closes), never unmapped memory.</li>
     *   <li>{@link RegionMode#ARENA_CHUNKS}: {@code slice} itself, which dies with the region
     *       only. Its memory belongs to the region's arena, so no view in another arena could
     *       outlive the region safely (and re-scoping is a restricted method, which this mode
     *       avoids).</li>
     * </ul>
     *
     * @throws IllegalStateException    if the region is closed
     * @throws IllegalArgumentException if {@code slice} is not a slice of this region
     */
    public abstract MemorySegment scopedView(MemorySegment slice, java.lang.foreign.Arena arena);

    /**
     * Unmaps (or frees) the whole region; a {@link #scopedView} still open defers the unmapping to
     * its arena's close. Only call it when no thread can still touch the region: every accessor,
     * and every access through another view, then fails with {@link IllegalStateException} instead
     * of reaching unmapped memory ({@link #slice} may still make a view). A second close fails
     * with {@link IllegalStateException}.
     */
    @Override
    public abstract void close();

    final void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + length
                    + ") is outside the region of " + size + " bytes");
        }
    }

    final IllegalStateException closed() {
        return new IllegalStateException("the Floe region is closed");
    }
}
