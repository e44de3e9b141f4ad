package dev.floe.handle;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.SizeClasses;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * ANCHORAGE's heap: the handle area, where the objects named by handles live, kept apart from
 * the fixed (Nova) slices of the same {@link FloeAllocator} so that moving objects can empty a
 * superblock.
 *
 * <h2>Structure</h2>
 * The area is a set of {@linkplain AreaChunk chunks} (ANCHORAGE's sub-heaps; "superblocks of the
 * handle area"): runs of {@code chunkSize} bytes taken from the allocator as large allocations,
 * so they never share a superblock with fixed slices and cost no change to the allocator. Each
 * chunk serves one of the allocator's size classes. An allocation takes the lowest-addressed chunk
 * of its class with a free block (or carves a fresh chunk), which packs objects toward the bottom.
 * A chunk whose last block is freed goes back to the allocator at once ({@code madvise}, via
 * {@link FloeAllocator#free}); its addresses stay mapped and readable (invariant 1), which
 * optimistic readers of a moved object may still touch before they fail validation.
 *
 * <h2>No locks: the service never makes an application thread wait</h2>
 * Allocations, frees and the defragmenter's choices change a chunk only through the CASes of
 * {@link AreaChunk} (its state word decides whether a block may be taken; see there). Per size
 * class, two concurrent skip-list sets ordered by address hold the class's chunks and, as a hint,
 * the chunks that may take an allocation. An allocation walks the hint set upward and reserves a
 * block in the first chunk whose state word allows it; a chunk that refuses is dropped from the
 * hint set and put back at once if a free made room meanwhile (the free itself re-lists a chunk it
 * took from full, so in every interleaving a chunk with room ends up listed: either the free's
 * re-listing follows the drop, or the drop's re-check follows the free). A free that empties a
 * chunk marks it RELEASED in the same CAS that takes its count to zero, so no reservation can
 * follow, unlists it, and only then returns it to the allocator. Carving a fresh chunk is the only
 * step that calls the allocator on the allocation path; concurrent carvers may each carve one.
 * So allocate and free are lock-free, and the defragmenter (which allocates copies, frees old
 * copies and marks chunks through the same CASes) can delay an application thread only by
 * winning a CAS it retries, never by holding anything while it is descheduled.
 *
 * <h2>Fragmentation in O(1)</h2>
 * Two counters: committed bytes (chunks held × chunk size) and live bytes (the block bytes of
 * allocated blocks). {@link #fragmentation()} is their ratio. Internal fragmentation (an object
 * smaller than its size class) is not counted: moving cannot remove it.
 *
 * <h2>Evacuation</h2>
 * {@link #evacuationCandidates} picks, per size class, as many of the sparsest chunks as the
 * class holds beyond what its live blocks need and marks them evacuating (a state-word bit that
 * refuses reservations), so no new object lands in them while the {@link Anchorage defragmenter}
 * moves their objects out; {@link #endEvacuation} lets allocations into what could not be emptied
 * (pinned objects).
 */
public final class AnchorageHeap implements HandleService {
    /** Default chunk size: 256 KiB, the allocator's superblock size. */
    public static final long DEFAULT_CHUNK_SIZE = 256L << 10;

    /** By address; chunks carved at the same address one after the other differ by serial. */
    private static final Comparator<AreaChunk> BY_OFFSET =
            Comparator.comparingLong((AreaChunk c) -> c.offset).thenComparingLong(c -> c.serial);

    private final FloeAllocator allocator;
    private final long chunkSize;
    private final long maxObject;
    private final ClassHeap[] classes = new ClassHeap[SizeClasses.COUNT];
    private final ConcurrentSkipListMap<Long, AreaChunk> byOffset = new ConcurrentSkipListMap<>();
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong live = new AtomicLong();
    private final AtomicLong serials = new AtomicLong();
    /**
     * Set by {@link #close()}: no chunk is carved any more. Read only where a chunk would be
     * carved or an offset is not found, never on the path that reserves a block in a listed chunk.
     */
    private volatile boolean closed;
    /** Whether a {@link HandleSpace} uses this heap (one space per heap: its close frees everything). */
    private final java.util.concurrent.atomic.AtomicBoolean attached = new java.util.concurrent.atomic.AtomicBoolean();

    /** The chunks of one size class. */
    private static final class ClassHeap {
        /** Chunks that may take an allocation (a hint: the chunk's state word decides). */
        final ConcurrentSkipListSet<AreaChunk> available = new ConcurrentSkipListSet<>(BY_OFFSET);
        /** Every chunk of the class not yet unlisted after its release. */
        final ConcurrentSkipListSet<AreaChunk> chunks = new ConcurrentSkipListSet<>(BY_OFFSET);
    }

    /** A heap with {@link #DEFAULT_CHUNK_SIZE} chunks. */
    public AnchorageHeap(FloeAllocator allocator) {
        this(allocator, DEFAULT_CHUNK_SIZE);
    }

    /**
     * @param chunkSize a power of two from 64 KiB to 8 MiB, and at most the allocator's
     *                  {@link FloeAllocator#maxAllocation()} (a chunk is one allocation)
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if {@code chunkSize} is not such a size
     */
    public AnchorageHeap(FloeAllocator allocator, long chunkSize) {
        this.allocator = java.util.Objects.requireNonNull(allocator, "allocator");
        if (allocator.isClosed()) throw new IllegalStateException("the allocator is closed");
        if (Long.bitCount(chunkSize) != 1 || chunkSize < (64 << 10) || chunkSize > (8 << 20)) {
            throw new IllegalArgumentException("chunk size must be a power of two in [64 KiB, 8 MiB]: " + chunkSize);
        }
        if (chunkSize > allocator.maxAllocation()) {
            // else every allocation of the space failed with the allocator's message about a
            // size the caller never asked for (until 2026-11-24)
            throw new IllegalArgumentException("chunk size " + chunkSize + " is above the allocator's largest allocation ("
                    + allocator.maxAllocation() + " bytes, for a region of " + allocator.region().size() + ")");
        }
        if (allocator.region().size() > (1L << EntryState.OFFSET_BITS)) {
            throw new IllegalArgumentException("handle entries address regions up to 1 TiB");
        }
        this.chunkSize = chunkSize;
        this.maxObject = Math.min(SizeClasses.MAX_SMALL, chunkSize / 4);
        for (int c = 0; c < classes.length; c++) classes[c] = new ClassHeap();
    }

    /** Claims this heap for the one space it serves; false if a space already did. */
    boolean attach() {
        return attached.compareAndSet(false, true);
    }

    /** The allocator the chunks come from. */
    FloeAllocator allocator() {
        return allocator;
    }

    @Override
    public long maxObjectSize() {
        return maxObject;
    }

    @Override
    public long allocate(long size, int id) {
        if (size <= 0 || size > maxObject) {
            throw new IllegalArgumentException("object size " + size + " is not in [1, " + maxObject + "]");
        }
        int c = SizeClasses.classOf(size);
        ClassHeap h = classes[c];
        for (AreaChunk ch : h.available) { // lowest address first
            if (ch.reserve()) {
                live.addAndGet(ch.blockSize);
                return ch.claim(id);
            }
            h.available.remove(ch);
            if (ch.acceptsAllocations()) h.available.add(ch); // a free made room meanwhile
        }
        return carve(h, c, id);
    }

    /**
     * A fresh chunk for class {@code c}, its first block taken for {@code id}; that block's offset.
     * A closed heap carves nothing: a chunk carved after {@link #close()} (a defragmentation pass
     * still copying when its space closed) was never given back to the allocator.
     */
    private long carve(ClassHeap h, int c, int id) {
        if (closed) throw closedException();
        long base = allocator.allocate(chunkSize);
        AreaChunk ch = new AreaChunk(base, c, SizeClasses.blockSize(c), chunkSize, serials.incrementAndGet());
        long off = ch.claim(id); // the chunk starts with one block reserved for its carver
        committed.addAndGet(chunkSize);
        live.addAndGet(ch.blockSize);
        byOffset.put(base, ch);
        h.chunks.add(ch);
        h.available.add(ch);
        return off;
    }

    @Override
    public void free(long offset) {
        AreaChunk ch = chunkOf(offset);
        int r = ch.clear(offset); // throws if offset is not an allocated block
        live.addAndGet(-ch.blockSize);
        ClassHeap h = classes[ch.sizeClass];
        if (r == AreaChunk.REOPENED) {
            h.available.add(ch);
        } else if (r == AreaChunk.EMPTIED) { // RELEASED: nothing can be taken here any more
            h.available.remove(ch);
            h.chunks.remove(ch);
            byOffset.remove(ch.offset, ch); // before the memory can be carved again
            allocator.free(ch.offset);       // madvise: the memory goes back to the OS
            committed.addAndGet(-chunkSize);
        }
    }

    private AreaChunk chunkOf(long offset) {
        Map.Entry<Long, AreaChunk> e = byOffset.floorEntry(offset);
        if (e == null || offset >= e.getKey() + chunkSize) {
            if (closed) throw closedException(); // close gave every chunk back
            throw new IllegalArgumentException("offset " + offset + " is not in the handle area");
        }
        return e.getValue();
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code offset} is not the start of a block allocated now
     *                                  (an interior offset, a freed block, or outside the area),
     *                                  as {@link dev.floe.memory.FloeAllocator#usableSize} answers
     * @throws IllegalStateException    if the heap is closed
     */
    @Override
    public long usableSize(long offset) {
        AreaChunk ch = chunkOf(offset);
        if (!ch.isUsedBlock(offset)) throw new IllegalArgumentException("offset " + offset + " is not an allocated block");
        return ch.blockSize;
    }

    @Override
    public long committedBytes() {
        return committed.get();
    }

    @Override
    public long liveBytes() {
        return live.get();
    }

    /** Committed bytes over live bytes (1.0 when nothing is live): ANCHORAGE's F, in O(1). */
    public double fragmentation() {
        long l = live.get();
        return l == 0 ? 1.0 : (double) committed.get() / l;
    }

    /** Bytes per handle-area chunk (the unit that is emptied and released). */
    public long chunkSize() {
        return chunkSize;
    }

    /** Chunks held now (all classes). */
    public int chunkCount() {
        return byOffset.size();
    }

    /**
     * Chooses chunks of class {@code c} to empty, marks them evacuating and takes them out of the
     * allocation set. Normally: the sparsest chunks beyond the number the class's live blocks
     * need, with any free block; with {@code all}: every chunk (the test mode that moves every
     * object every pass, whose destinations are then fresh chunks).
     */
    List<AreaChunk> evacuationCandidates(int c, boolean all) {
        ClassHeap h = classes[c];
        List<Occupancy> seen = new ArrayList<>();
        for (AreaChunk ch : h.chunks) if (!ch.isReleased()) seen.add(new Occupancy(ch, ch.live()));
        List<Occupancy> wanted = seen;
        if (!all) {
            if (seen.isEmpty()) return new ArrayList<>();
            long liveBlocks = 0;
            for (Occupancy o : seen) liveBlocks += o.live();
            int perChunk = seen.getFirst().chunk().blockCount;
            long excess = seen.size() - (liveBlocks + perChunk - 1) / perChunk;
            if (excess <= 0) return new ArrayList<>();
            wanted = new ArrayList<>(seen);
            wanted.sort(SPARSEST_FIRST);
            wanted = wanted.subList(0, (int) excess);
        }
        List<AreaChunk> picked = new ArrayList<>();
        for (Occupancy o : wanted) {
            AreaChunk ch = o.chunk();
            if (!all && ch.isFull()) continue;
            if (!ch.startEvacuation()) continue; // released, or picked already
            h.available.remove(ch);
            picked.add(ch);
        }
        return picked;
    }

    /** A chunk and its live block count when a pass looked at it. */
    private record Occupancy(AreaChunk chunk, int live) {}

    /** Fewest live blocks first; among equals, highest address first (keep the bottom packed). */
    private static final Comparator<Occupancy> SPARSEST_FIRST = Comparator.comparingInt(Occupancy::live)
            .thenComparing(o -> o.chunk(), BY_OFFSET.reversed());

    /** The used blocks of {@code ch} now (offsets and owner ids; a racy snapshot); returns how many. */
    int usedBlocks(AreaChunk ch, long[] offs, int[] ids) {
        return ch.isReleased() ? 0 : ch.usedBlocks(offs, ids);
    }

    /** Ends an evacuation: a chunk that still holds objects takes allocations again. */
    void endEvacuation(AreaChunk ch) {
        ch.endEvacuation();
        if (ch.acceptsAllocations()) classes[ch.sizeClass].available.add(ch);
    }

    /**
     * Chunks that would take an allocation but are not listed for one (the invariant the listing
     * protocol keeps: 0 whenever no allocation, free or evacuation is in progress).
     */
    int unlistedChunksWithRoom() {
        int n = 0;
        for (ClassHeap h : classes) {
            for (AreaChunk ch : h.chunks) if (ch.acceptsAllocations() && !h.available.contains(ch)) n++;
        }
        return n;
    }

    /** Size classes in use (indices for {@link #evacuationCandidates}). */
    static int classCount() {
        return SizeClasses.COUNT;
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("the AnchorageHeap is closed");
    }

    /**
     * Gives every chunk back to the allocator, whatever it holds. Afterwards {@link #allocate},
     * {@link #free} and {@link #usableSize} throw {@link IllegalStateException}; the counters read 0.
     */
    @Override
    public void close() {
        closed = true; // before the chunks go: a carve that checks after this carves nothing
        for (ClassHeap h : classes) {
            for (AreaChunk ch : h.chunks) {
                if (ch.forceRelease()) allocator.free(ch.offset);
            }
            h.chunks.clear();
            h.available.clear();
        }
        byOffset.clear();
        committed.set(0);
        live.set(0);
    }
}
