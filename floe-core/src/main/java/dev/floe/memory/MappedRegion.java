package dev.floe.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A region reserved with one {@code mmap(PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|
 * MAP_NORESERVE)} and accessed through one sized {@link MemorySegment} whose scope is a shared
 * arena: closing the arena unmaps the range (once no {@link #scopedView} holds it, see below), and
 * the JDK's scope checks turn every later access (through this class or any slice handed out)
 * into an {@link IllegalStateException}.
 *
 * <p>The reservation is over-allocated by one alignment unit and trimmed so that the base is
 * aligned to the superblock size. Pages are touched lazily; {@link #release} is
 * {@code madvise(MADV_DONTNEED)}, after which the range reads as zeros (readable after free).
 *
 * <h2>Scoped views, system calls and the unmapping</h2>
 * A {@link #scopedView} belongs to an arena of its own, which the JDK does not tie to this
 * region's arena: if closing the region unmapped the range while such a view lived, the view's
 * next access would fault and kill the JVM. So {@link #views} counts the scoped views alive,
 * with {@link #CLOSED} set by the region arena's cleanup: a view is made only after a CAS that
 * increments the count of a region not yet closed, and its arena's cleanup decrements it. The
 * cleanup of the region arena sets {@code CLOSED} and counts itself as one more holder while it
 * gives the resident pages back ({@code MADV_DONTNEED}, only if views are alive), then drops out
 * like a view. Whoever's decrement leaves exactly {@code CLOSED} (closed, no holder) unmaps: the
 * count only falls once {@code CLOSED} is set and no view can be made any more, so exactly one
 * decrement does, after the last access through any view, and never under the madvise. Every
 * system call on the range ({@code madvise}, {@code mmap(MAP_FIXED)}, {@code mincore}) holds it
 * the same way ({@link #hold}): a free that releases a superblock while another thread closes
 * the allocator can no longer reach a range unmapped, or mapped by someone else, since its check.
 */
@SuppressWarnings("restricted") // restricted FFM calls are this class's purpose; callers check native access
final class MappedRegion extends Region {
    private final Arena arena;
    private final MemorySegment segment;
    private final ReleaseMethod method;
    /** The shared frame's memfd ({@link ReleaseMethod#SHARED_FRAME}), else -1. */
    private final int frame;
    /** Length of the shared frame: one superblock. */
    private final long frameLength;
    /** Scoped views alive, plus {@link #CLOSED} once the region's arena has closed. */
    private final AtomicLong views;
    private static final long CLOSED = 1L << 62;

    private MappedRegion(long size, Arena arena, MemorySegment segment, ReleaseMethod method,
                         int frame, long frameLength, AtomicLong views) {
        super(size);
        this.arena = arena;
        this.segment = segment;
        this.method = method;
        this.frame = frame;
        this.frameLength = frameLength;
        this.views = views;
    }

    static MappedRegion reserve(long size, long alignment, ReleaseMethod method) {
        int frame = method == ReleaseMethod.SHARED_FRAME ? Libc.memfdFrame("floe-shared-frame", alignment) : -1;
        long raw;
        try {
            raw = Libc.mmapReserve(size + alignment);
        } catch (RuntimeException e) {
            if (frame >= 0) Libc.closeFd(frame);
            throw e;
        }
        long base = (raw + alignment - 1) & -alignment;
        Libc.munmap(raw, base - raw);                                  // unaligned head
        Libc.munmap(base + size, raw + size + alignment - (base + size)); // tail
        Arena arena = Arena.ofShared();
        AtomicLong views = new AtomicLong();
        MemorySegment seg = MemorySegment.ofAddress(base).reinterpret(size, arena, s -> {
            // Closed, and holding the range like one more view while its pages go back, so that
            // no view's close can unmap it under the madvise.
            views.getAndAdd(CLOSED + 1);
            if (views.get() != CLOSED + 1) Libc.dontNeed(base, size); // scoped views still live
            viewGone(views, base, size, frame);
        });
        return new MappedRegion(size, arena, seg, method, frame, alignment, views);
    }

    /** Drops one holder of the range; the last one after the close unmaps it. */
    private static void viewGone(AtomicLong views, long base, long size, int frame) {
        if (views.decrementAndGet() == CLOSED) {
            Libc.munmap(base, size);
            if (frame >= 0) Libc.closeFd(frame);
        }
    }

    /** A view in {@code arena} that holds the range mapped until {@code arena} closes (class comment). */
    @Override
    public MemorySegment scopedView(MemorySegment slice, Arena arena) {
        if (!isOpen()) throw closed();
        long base = segment.address();
        if (!slice.scope().equals(this.arena.scope()) || slice.address() < base
                || slice.address() - base > size() - slice.byteSize()) {
            throw new IllegalArgumentException("not a slice of this region: " + slice);
        }
        hold();
        try {
            return slice.reinterpret(arena, ignored -> unhold());
        } catch (RuntimeException | Error e) {
            unhold();
            throw e;
        }
    }

    /**
     * Counts the caller as one more holder of the range, as a scoped view is (class comment):
     * until {@link #unhold} the range stays mapped, even if the region closes meanwhile. Also
     * taken around every system call on the range, so that a call racing the close can never
     * reach an unmapped range, or one that another mapping took over since (an {@code madvise}
     * there would zero its pages, an {@code mmap(MAP_FIXED)} replace them).
     *
     * @throws IllegalStateException if the region is closed
     */
    private void hold() {
        long v;
        do {
            v = views.get();
            if ((v & CLOSED) != 0 || !arena.scope().isAlive()) throw closed();
        } while (!views.compareAndSet(v, v + 1));
    }

    /** Ends a {@link #hold}; the last holder after the close unmaps. */
    private void unhold() {
        viewGone(views, segment.address(), size(), frame);
    }

    @Override
    public ReleaseMethod releaseMethod() {
        return method;
    }

    /**
     * {@link ReleaseMethod#SHARED_FRAME}: one {@code mmap(MAP_SHARED|MAP_FIXED)} of the frame over
     * the superblock. MAP_FIXED replaces the old pages atomically, so an optimistic reader never
     * meets a hole. {@link ReleaseMethod#MADVISE}: {@link #release}.
     */
    @Override
    void releaseEmptySuperblock(long offset, long length) {
        if (method != ReleaseMethod.SHARED_FRAME) {
            release(offset, length);
            return;
        }
        checkRange(offset, length);
        if (length != frameLength || (offset & (frameLength - 1)) != 0) {
            throw new IllegalArgumentException("a superblock release must cover one aligned superblock: "
                    + offset + "+" + length);
        }
        hold();
        try {
            Libc.remapFixed(segment.address() + offset, length, frame);
        } finally {
            unhold();
        }
    }

    /** {@link ReleaseMethod#SHARED_FRAME}: fresh private anonymous pages in place of the frame. */
    @Override
    void reuseEmptySuperblock(long offset, long length) {
        checkRange(offset, length);
        if (method != ReleaseMethod.SHARED_FRAME) return;
        hold();
        try {
            Libc.remapFixed(segment.address() + offset, length, -1);
        } finally {
            unhold();
        }
    }

    @Override
    public RegionMode mode() {
        return RegionMode.MAPPED;
    }

    @Override
    public MemorySegment slice(long offset, long length) {
        return segment.asSlice(offset, length);
    }

    @Override
    public long getLongPlain(long offset) {
        return (long) LONG.get(segment, offset);
    }

    @Override
    public long getBits(long offset, int width) {
        return bits(segment, offset, width);
    }

    @Override
    public long getLongAcquire(long offset) {
        return (long) LONG.getAcquire(segment, offset);
    }

    @Override
    public long getLongVolatile(long offset) {
        return (long) LONG.getVolatile(segment, offset);
    }

    @Override
    public void setLongPlain(long offset, long value) {
        LONG.set(segment, offset, value);
    }

    @Override
    public void setLongRelease(long offset, long value) {
        LONG.setRelease(segment, offset, value);
    }

    @Override
    public void setLongVolatile(long offset, long value) {
        LONG.setVolatile(segment, offset, value);
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        return LONG.compareAndSet(segment, offset, expected, value);
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        return (long) LONG.getAndAdd(segment, offset, delta);
    }

    @Override
    public void release(long offset, long length) {
        checkReleaseRange(offset, length);
        hold();
        try {
            Libc.dontNeed(segment.address() + offset, length);
        } finally {
            unhold();
        }
    }

    @Override
    public long residentBytes(long from, long to) {
        checkRange(from, to - from);
        hold();
        try {
            return Libc.residentPages(segment.address() + from, to - from) * Libc.PAGE_SIZE;
        } finally {
            unhold();
        }
    }

    @Override
    void commit(long offset, long length) {
        checkRange(offset, length);
    }

    /** One write per 4 KiB page: a write fault maps a page of its own (a read would map the shared zero page). */
    @Override
    void preTouch(long offset, long length) {
        checkRange(offset, length);
        for (long at = offset; at < offset + length; at += 4096) LONG.set(segment, at & ~7L, 0L);
    }

    @Override
    boolean growsContiguously() {
        return true;
    }

    @Override
    long extentGranularity() {
        return Libc.PAGE_SIZE;
    }

    @Override
    boolean contiguous(long a, long b) {
        return true;
    }

    @Override
    public boolean isOpen() {
        return arena.scope().isAlive();
    }

    @Override
    public void close() {
        if (!arena.scope().isAlive()) throw closed();
        arena.close(); // runs the munmap cleanup
    }
}
