package dev.floe.handle;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.SizeClasses;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * ANCHORAGE's heap: the handle area, where the objects named by handles live, kept apart from
 * the fixed (Nova) slices of the same {@link FloeAllocator} so that moving objects can empty a
 * superblock.
 *
 * <h2>Structure</h2>
 * The area is a set of {@linkplain AreaChunk chunks} (ANCHORAGE's sub-heaps; "superblocks of the
 * handle area"): runs of {@code chunkSize} bytes taken from the allocator as large allocations,
 * so they never share a superblock with fixed slices and cost no change to the allocator. Each
 * chunk serves one of the allocator's size classes. Per size class, one lock guards its chunks'
 * block maps and the set of chunks that can take an allocation, ordered by address: an
 * allocation takes the lowest-addressed chunk with a free block (or a fresh chunk), which packs
 * objects toward the bottom. A chunk whose last block is freed goes back to the allocator at
 * once ({@code madvise}, via {@link FloeAllocator#free}); its addresses stay mapped and readable
 * (invariant 1), which optimistic readers of a moved object may still touch before they fail
 * validation.
 *
 * <h2>Fragmentation in O(1)</h2>
 * Two counters: committed bytes (chunks held × chunk size) and live bytes (the block bytes of
 * allocated blocks). {@link #fragmentation()} is their ratio. Internal fragmentation (an object
 * smaller than its size class) is not counted: moving cannot remove it.
 *
 * <h2>Evacuation</h2>
 * {@link #evacuationCandidates} picks, per size class, as many of the sparsest chunks as the
 * class holds beyond what its live blocks need, marks them evacuating and takes them out of the
 * allocation set, so no new object lands in them while the {@link Anchorage defragmenter} moves
 * their objects out; {@link #endEvacuation} puts back what could not be emptied (pinned objects).
 */
public final class AnchorageHeap implements HandleService {
    /** Default chunk size: 256 KiB, the allocator's superblock size. */
    public static final long DEFAULT_CHUNK_SIZE = 256L << 10;

    private static final Comparator<AreaChunk> BY_OFFSET = Comparator.comparingLong(c -> c.offset);

    private final FloeAllocator allocator;
    private final long chunkSize;
    private final long maxObject;
    private final ClassHeap[] classes = new ClassHeap[SizeClasses.COUNT];
    private final ConcurrentSkipListMap<Long, AreaChunk> byOffset = new ConcurrentSkipListMap<>();
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong live = new AtomicLong();

    /** The chunks of one size class. */
    private static final class ClassHeap {
        final ReentrantLock lock = new ReentrantLock();
        final TreeSet<AreaChunk> available = new TreeSet<>(BY_OFFSET);
        final List<AreaChunk> chunks = new ArrayList<>();
    }

    /** The thread running a defragmentation pass, whose lock hold times are measured. */
    private volatile Thread mover;
    /** Longest time the mover held a size-class lock (the longest it could block an allocation or free). */
    private volatile long maxMoverHoldNanos;

    /** Takes {@code h}'s lock; returns the time if the caller is the mover, else 0. */
    private long lock(ClassHeap h) {
        h.lock.lock();
        return Thread.currentThread() == mover ? System.nanoTime() : 0;
    }

    private void unlock(ClassHeap h, long held) {
        if (held != 0) {
            long t = System.nanoTime() - held;
            if (t > maxMoverHoldNanos) maxMoverHoldNanos = t; // only the mover writes it
        }
        h.lock.unlock();
    }

    /** Marks the calling thread as the mover for lock-hold measurements (null: none). */
    void setMover(Thread t) {
        mover = t;
    }

    /**
     * The longest a defragmentation pass held one of the heap's locks, in nanoseconds: the longest
     * the service could make an application thread's allocate or free wait. Reads, writes and pins
     * never wait for the service.
     */
    public long maxMoverLockHoldNanos() {
        return maxMoverHoldNanos;
    }

    /** A heap with {@link #DEFAULT_CHUNK_SIZE} chunks. */
    public AnchorageHeap(FloeAllocator allocator) {
        this(allocator, DEFAULT_CHUNK_SIZE);
    }

    /** @param chunkSize a power of two from 64 KiB to 8 MiB */
    public AnchorageHeap(FloeAllocator allocator, long chunkSize) {
        this.allocator = java.util.Objects.requireNonNull(allocator, "allocator");
        if (Long.bitCount(chunkSize) != 1 || chunkSize < (64 << 10) || chunkSize > (8 << 20)) {
            throw new IllegalArgumentException("chunk size must be a power of two in [64 KiB, 8 MiB]: " + chunkSize);
        }
        if (allocator.region().size() > (1L << EntryState.OFFSET_BITS)) {
            throw new IllegalArgumentException("handle entries address regions up to 1 TiB");
        }
        this.chunkSize = chunkSize;
        this.maxObject = Math.min(SizeClasses.MAX_SMALL, chunkSize / 4);
        for (int c = 0; c < classes.length; c++) classes[c] = new ClassHeap();
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
        long off;
        long held = lock(h);
        try {
            AreaChunk ch = h.available.isEmpty() ? carve(h, c) : h.available.first();
            off = ch.take(id);
            if (ch.isFull()) h.available.remove(ch);
            live.addAndGet(ch.blockSize);
        } finally {
            unlock(h, held);
        }
        return off;
    }

    private AreaChunk carve(ClassHeap h, int c) {
        long base = allocator.allocate(chunkSize);
        AreaChunk ch = new AreaChunk(base, c, SizeClasses.blockSize(c), chunkSize);
        h.chunks.add(ch);
        h.available.add(ch);
        byOffset.put(base, ch);
        committed.addAndGet(chunkSize);
        return ch;
    }

    @Override
    public void free(long offset) {
        AreaChunk ch = chunkOf(offset);
        ClassHeap h = classes[ch.sizeClass];
        boolean emptied = false;
        long held = lock(h);
        try {
            int i = ch.released ? -1 : ch.usedIndex(offset);
            if (i < 0) throw new IllegalArgumentException("offset " + offset + " is not an allocated block");
            boolean wasFull = ch.isFull();
            ch.release(i);
            live.addAndGet(-ch.blockSize);
            if (ch.live() == 0) {
                ch.released = true;
                h.available.remove(ch);
                h.chunks.remove(ch);
                byOffset.remove(ch.offset);
                emptied = true;
            } else if (wasFull && !ch.evacuating) {
                h.available.add(ch);
            }
        } finally {
            unlock(h, held);
        }
        if (emptied) { // unlisted: nobody else can reach it; the system call runs outside the lock
            allocator.free(ch.offset); // madvise: the memory goes back to the OS
            committed.addAndGet(-chunkSize);
        }
    }

    private AreaChunk chunkOf(long offset) {
        Map.Entry<Long, AreaChunk> e = byOffset.floorEntry(offset);
        if (e == null || offset >= e.getKey() + chunkSize) {
            throw new IllegalArgumentException("offset " + offset + " is not in the handle area");
        }
        return e.getValue();
    }

    @Override
    public long usableSize(long offset) {
        return chunkOf(offset).blockSize;
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
        long held = lock(h);
        try {
            for (AreaChunk ch : h.chunks) seen.add(new Occupancy(ch, ch.live()));
        } finally {
            unlock(h, held);
        }
        List<Occupancy> wanted = seen;
        if (!all) { // choose outside the lock: the sort must not delay allocations
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
        held = lock(h);
        try {
            for (Occupancy o : wanted) {
                AreaChunk ch = o.chunk();
                if (ch.released || ch.evacuating || (!all && ch.isFull())) continue;
                ch.evacuating = true;
                h.available.remove(ch);
                picked.add(ch);
            }
        } finally {
            unlock(h, held);
        }
        return picked;
    }

    /** A chunk and its live block count when a pass looked at it. */
    private record Occupancy(AreaChunk chunk, int live) {}

    /** Fewest live blocks first; among equals, highest address first (keep the bottom packed). */
    private static final Comparator<Occupancy> SPARSEST_FIRST = Comparator.comparingInt(Occupancy::live)
            .thenComparing(o -> o.chunk(), BY_OFFSET.reversed());

    /** The used blocks of {@code ch} now (offsets and owner ids); returns how many. */
    int usedBlocks(AreaChunk ch, long[] offs, int[] ids) {
        ClassHeap h = classes[ch.sizeClass];
        long held = lock(h);
        try {
            return ch.released ? 0 : ch.usedBlocks(offs, ids);
        } finally {
            unlock(h, held);
        }
    }

    /** Ends an evacuation: a chunk that still holds objects takes allocations again. */
    void endEvacuation(AreaChunk ch) {
        ClassHeap h = classes[ch.sizeClass];
        long held = lock(h);
        try {
            ch.evacuating = false;
            if (!ch.released && !ch.isFull()) h.available.add(ch);
        } finally {
            unlock(h, held);
        }
    }

    /** Size classes in use (indices for {@link #evacuationCandidates}). */
    static int classCount() {
        return SizeClasses.COUNT;
    }

    @Override
    public void close() {
        for (ClassHeap h : classes) {
            long held = lock(h);
            try {
                for (AreaChunk ch : h.chunks) {
                    ch.released = true;
                    allocator.free(ch.offset);
                }
                h.chunks.clear();
                h.available.clear();
            } finally {
                unlock(h, held);
            }
        }
        byOffset.clear();
        committed.set(0);
        live.set(0);
    }
}
