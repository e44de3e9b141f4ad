package dev.floe.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The fallback region used when native access is not enabled (or, in {@code AUTO} mode, when the
 * OS refuses a mapped reservation, {@link Region#open}): the address space is virtual, and the
 * parts the allocator commits are backed by chunks allocated from one shared {@link Arena}. No
 * restricted method is ever called, so the JDK prints no warning.
 *
 * <p>Layout: the region is cut into slots of {@code chunkSize} bytes; {@code slots[i]} covers
 * offsets {@code [i*chunkSize, (i+1)*chunkSize)} and is {@code null} until committed. A commit
 * that needs several new slots allocates them as one contiguous segment, and each slot holds the
 * slice of that segment starting at the slot, running to the segment's end; so a range inside
 * one commit is contiguous and {@link #slice} can return it whole. Slots are published with a
 * release store and read with an acquire load, so a thread that learns an offset through any
 * race still finds its chunk.
 *
 * <p>Memory is never returned to the OS in this mode: {@link #release} zero-fills (so reads
 * after release see zeros, as in mapped mode) and everything is freed on {@link #close}.
 */
final class ChunkedRegion extends Region {
    /** Largest chunk: what regions of more than {@code 4 MiB × TARGET_SLOTS} bytes use. */
    static final long DEFAULT_CHUNK = 4L << 20;
    /**
     * How many chunks a region is cut into, unless that would make them larger than
     * {@link #DEFAULT_CHUNK} or smaller than the alignment: 8,192 slots cost 96 KiB on-heap (a
     * reference and a long each); the default 256 GiB region has 65,536 slots of 4 MiB.
     */
    static final long TARGET_SLOTS = 1 << 13;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

    private final Arena arena = Arena.ofShared();
    private final int chunkShift;
    private final long chunkMask;
    private final MemorySegment[] slots;
    /** Base offset of the commit each slot belongs to (for {@link #contiguous}). */
    private final long[] slotOrigin;

    /**
     * The chunk size for a region of {@code size} bytes: the region cut into at most
     * {@link #TARGET_SLOTS} chunks, but no chunk larger than {@link #DEFAULT_CHUNK} or smaller than
     * {@code alignment} (the superblock size). A chunk is committed (and zeroed) whole, so small
     * regions get small chunks: a map with a budget of its own and one entry commits a
     * superblock or two, not 4 MiB. When that size does not divide both halves of the region (so
     * the large-run area would not start on a chunk boundary), the alignment unit.
     */
    static long chunkSizeFor(long size, long alignment) {
        long c = Math.max(alignment, Math.min(DEFAULT_CHUNK, Long.highestOneBit(size / TARGET_SLOTS)));
        return (size / 2) % c == 0 && size % c == 0 ? c : alignment;
    }

    /** A region of {@code size} bytes in chunks of {@link #chunkSizeFor}{@code (size, alignment)}. */
    static ChunkedRegion open(long size, long alignment) {
        return new ChunkedRegion(size, chunkSizeFor(size, alignment));
    }

    ChunkedRegion(long size, long chunkSize) {
        super(size);
        if (Long.bitCount(chunkSize) != 1 || size % chunkSize != 0) {
            throw new IllegalArgumentException("chunk size must be a power of two dividing the size");
        }
        long n = size / chunkSize;
        if (n > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("region too large: " + size);
        this.chunkShift = Long.numberOfTrailingZeros(chunkSize);
        this.chunkMask = chunkSize - 1;
        this.slots = new MemorySegment[(int) n];
        this.slotOrigin = new long[(int) n];
    }

    @Override
    public RegionMode mode() {
        return RegionMode.ARENA_CHUNKS;
    }

    private MemorySegment chunk(long offset) {
        if (offset < 0 || offset >= size) {
            throw new IndexOutOfBoundsException("offset " + offset + " is outside the region of "
                    + size + " bytes");
        }
        MemorySegment s = (MemorySegment) SLOT.getAcquire(slots, (int) (offset >>> chunkShift));
        if (s == null) {
            if (!arena.scope().isAlive()) throw closed();
            throw new IndexOutOfBoundsException("offset " + offset + " was never allocated");
        }
        return s;
    }

    @Override
    public MemorySegment slice(long offset, long length) {
        checkRange(offset, length);
        return chunk(offset).asSlice(offset & chunkMask, length);
    }

    @Override
    public long getLongPlain(long offset) {
        return (long) LONG.get(chunk(offset), offset & chunkMask);
    }

    @Override
    public long getBits(long offset, int width) {
        // a field inside one slice lies inside one commit, which its first slot covers to the end
        return bits(chunk(offset), offset & chunkMask, width);
    }

    @Override
    public long getLongAcquire(long offset) {
        return (long) LONG.getAcquire(chunk(offset), offset & chunkMask);
    }

    @Override
    public long getLongVolatile(long offset) {
        return (long) LONG.getVolatile(chunk(offset), offset & chunkMask);
    }

    @Override
    public void setLongPlain(long offset, long value) {
        LONG.set(chunk(offset), offset & chunkMask, value);
    }

    @Override
    public void setLongRelease(long offset, long value) {
        LONG.setRelease(chunk(offset), offset & chunkMask, value);
    }

    @Override
    public void setLongVolatile(long offset, long value) {
        LONG.setVolatile(chunk(offset), offset & chunkMask, value);
    }

    @Override
    public boolean compareAndSetLong(long offset, long expected, long value) {
        return LONG.compareAndSet(chunk(offset), offset & chunkMask, expected, value);
    }

    @Override
    public long getAndAddLong(long offset, long delta) {
        return (long) LONG.getAndAdd(chunk(offset), offset & chunkMask, delta);
    }

    @Override
    public void release(long offset, long length) {
        checkReleaseRange(offset, length);
        slice(offset, length).fill((byte) 0);
    }

    /** Committed chunk bytes in {@code [from, to)}: arena memory is zeroed, so all of it is resident. */
    @Override
    public long residentBytes(long from, long to) {
        checkRange(from, to - from);
        if (!arena.scope().isAlive()) throw closed();
        if (to == from) return 0;
        long bytes = 0;
        for (long i = from >>> chunkShift, last = (to - 1) >>> chunkShift; i <= last; i++) {
            if (SLOT.getAcquire(slots, (int) i) != null) bytes += 1L << chunkShift;
        }
        return bytes;
    }

    /** Nothing to do: arena chunks are allocated zeroed, so they are resident once committed. */
    @Override
    void preTouch(long offset, long length) {
        checkRange(offset, length);
    }

    @Override
    synchronized void commit(long offset, long length) {
        checkRange(offset, length);
        if (!arena.scope().isAlive()) throw closed();
        int first = (int) (offset >>> chunkShift);
        int last = (int) ((offset + length - 1) >>> chunkShift);
        int from = first;
        while (from <= last && slots[from] != null) from++;
        if (from > last) return;
        if (from != first) {
            throw new IllegalStateException("commit of [" + offset + "+" + length
                    + ") straddles an earlier commit");
        }
        for (int i = from; i <= last; i++) {
            if (slots[i] != null) {
                throw new IllegalStateException("commit of [" + offset + "+" + length
                        + ") overlaps an earlier commit that is not contiguous with it");
            }
        }
        long bytes = ((long) (last - from + 1)) << chunkShift;
        MemorySegment seg;
        try {
            seg = arena.allocate(bytes, 4096);
        } catch (OutOfMemoryError e) { // malloc refused: a RuntimeException, so the caller refunds its charge
            NativeMemoryException n = new NativeMemoryException("the arena cannot allocate " + bytes
                    + " bytes to commit [" + offset + "+" + length + "): " + e.getMessage(), Libc.ENOMEM);
            n.initCause(e);
            throw n;
        }
        long origin = ((long) from) << chunkShift;
        for (int i = from; i <= last; i++) {
            slotOrigin[i] = origin;
            SLOT.setRelease(slots, i, seg.asSlice(((long) (i - from)) << chunkShift));
        }
    }

    @Override
    boolean growsContiguously() {
        return false;
    }

    @Override
    long extentGranularity() {
        return 1L << chunkShift;
    }

    @Override
    synchronized boolean contiguous(long a, long b) {
        int ia = (int) (a >>> chunkShift);
        int ib = (int) ((b - 1) >>> chunkShift);
        return slots[ia] != null && slots[ib] != null && slotOrigin[ia] == slotOrigin[ib];
    }

    /** {@code slice} itself: see {@link Region#scopedView}. */
    @Override
    public MemorySegment scopedView(MemorySegment slice, Arena arena) {
        if (!isOpen()) throw closed();
        if (!slice.scope().equals(this.arena.scope())) throw new IllegalArgumentException("not a slice of this region: " + slice);
        return slice;
    }

    @Override
    public boolean isOpen() {
        return arena.scope().isAlive();
    }

    @Override
    public synchronized void close() {
        if (!arena.scope().isAlive()) throw closed();
        arena.close();
    }
}
