package dev.floe.memory;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Floe's native memory allocator: a lock-free size-class allocator (LRMalloc's design) over one
 * {@link Region}, whose freed memory stays readable and whose empty superblocks go back to the OS.
 *
 * <pre>{@code
 * try (FloeAllocator alloc = FloeAllocator.builder().budget(1L << 30).build()) {
 *     long block = alloc.allocate(100);             // an offset into the region
 *     MemorySegment view = alloc.segment(block);    // bounded to the block's usable size
 *     view.set(ValueLayout.JAVA_LONG, 0, 42L);
 *     alloc.free(block);
 * }
 * }</pre>
 *
 * <h2>Layout of the region</h2>
 * <pre>
 *  0            superblockSize                  smallLimit = size/2                 size
 *  | reserved:   | superblocks of size classes  | large runs (page multiples)       |
 *  | offset 0 is | (index = offset &gt;&gt; log2 sb) |                                   |
 *  | never valid |                              |                                   |
 * </pre>
 * Offset 0 is never handed out, so layers above can use 0 as "null".
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Allocation and free of blocks up to {@link SizeClasses#MAX_SMALL} are lock-free
 *       ({@link BlockCaches}, {@link SuperblockHeap}); larger requests take a short lock
 *       ({@link LargeRuns}).</li>
 *   <li>Every offset ever returned stays readable until {@link #close()} (readable after free).
 *       Freed blocks are never written by the allocator: free-list state lives in on-heap bitmaps.</li>
 *   <li>Misuse is refused, never corrupting: a size {@code <= 0} or above
 *       {@link #maxAllocation()} is an {@link IllegalArgumentException}; freeing anything that is
 *       not a currently allocated block is an {@link IllegalFreeException}; exceeding the budget
 *       is a {@link FloeOutOfMemoryException}; in every case no block changes hands (a budget
 *       failure first flushes the cache stripes no other call holds, without waiting for the
 *       busy ones as {@link #trim()} does, and tries once more).</li>
 *   <li>Caches are bounded and belong to no thread; {@link #trim()} empties them.</li>
 *   <li>The statistics are an MXBean ({@code dev.floe:type=FloeAllocator,name=...}) and
 *       superblock releases and large allocations are JFR events ({@code floe.SuperblockRelease},
 *       {@code floe.LargeAllocation}).</li>
 * </ul>
 * Native access: in {@link RegionMode#MAPPED} mode the JVM needs
 * {@code --enable-native-access=ALL-UNNAMED} (or the name of the module holding Floe). Without
 * it, {@link RegionMode#AUTO} falls back to {@link RegionMode#ARENA_CHUNKS} silently; with it,
 * AUTO also falls back (with a WARNING on {@code dev.floe.memory}) when the OS refuses the
 * region's address space ({@code ENOMEM}: a {@code ulimit -v}, a container limit).
 */
public final class FloeAllocator implements AutoCloseable {
    /** See {@link #recarvesEmptySuperblocks()}. */
    private final boolean recarve;
    /** Default reserved address space: 256 GiB (costs no memory: MAP_NORESERVE). */
    public static final long DEFAULT_REGION_SIZE = 256L << 30;
    /** Default superblock size: 256 KiB (LRMalloc's uniform superblock size). */
    public static final long DEFAULT_SUPERBLOCK_SIZE = 256L << 10;

    /** Largest {@link Builder#cacheStripes} accepted. */
    public static final int MAX_CACHE_STRIPES = 1024;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final String name;
    private final Region region;
    private final SuperblockHeap heap;
    private final BlockCaches caches;
    private final LargeRuns large;
    private final Budget budget;
    private final long maxAllocation;
    private final ObjectName mbeanName;
    private volatile boolean closed;
    /** {@link #release} as a function, made once (a drain's batch free allocates nothing). */
    private final LongFunction<Superblock> releaser = this::release;

    private FloeAllocator(Builder b) {
        this.name = b.name != null ? b.name : "floe-" + INSTANCES.incrementAndGet();
        this.region = Region.open(b.regionSize, b.superblockSize, b.mode, b.releaseMethod);
        try {
            long smallLimit = (b.regionSize / 2) & -b.superblockSize;
            this.budget = new Budget(b.budget, this::liveBytes);
            // the directory is one heap reference per superblock: a huge region can run the heap out here
            this.heap = new SuperblockHeap(region, b.superblockSize, smallLimit, budget, b.recarve, b.classes);
            this.recarve = b.recarve;
            this.caches = new BlockCaches(heap, b.stripes > 0 ? b.stripes : BlockCaches.defaultStripes());
            this.large = new LargeRuns(region, budget, smallLimit, b.regionSize);
            this.maxAllocation = b.regionSize - smallLimit;
            // before anything is handed out: the touch writes zeros over memory no one uses yet.
            // Superblocks are carved from index 1 on (offset 0 is "null"), so the touch starts there.
            region.preTouch(b.superblockSize, Math.min(b.preTouch, Math.min(b.budget, smallLimit - b.superblockSize)));
            this.mbeanName = b.jmx ? registerMBean() : null;
        } catch (RuntimeException | Error e) { // no allocator to close: give the reservation back here
            try {
                region.close();
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A builder with every default; {@link Builder#build()} opens the allocator. */
    public static Builder builder() {
        return new Builder();
    }

    /** An allocator with every default (256 GiB of address space, no budget, auto mode). */
    public static FloeAllocator create() {
        return builder().build();
    }

    /**
     * Allocates a block of at least {@code size} bytes, 8-byte aligned, and returns its offset in
     * the {@link #region()}. Its contents are unspecified (freed memory is not cleared).
     *
     * <p>Free blocks held in the caches keep their superblocks committed. So before it fails for
     * the budget (or the address space), an allocation flushes the cache stripes no other call
     * holds at that moment (without waiting for the busy ones, unlike {@link #trim()}: allocation
     * stays lock-free) and tries once more: memory freed by any thread is available again to any
     * size, once no other thread is inside an allocator call. Address space is another matter: a
     * superblock serves the size class it was carved for until the region closes (unless
     * {@linkplain Builder#recarveEmptySuperblocks re-carved}), so a small-block area whose
     * superblocks are all carved refuses a class that has none, however little is committed
     * (see {@link Builder#regionSize}; the exception's message counts those superblocks).
     *
     * @throws IllegalArgumentException  if {@code size <= 0} or {@code size > maxAllocation()}
     * @throws FloeOutOfMemoryException  if the budget or the address space is exhausted
     * @throws NativeMemoryException     if the system refuses the memory (in the arena-chunks
     *                                   mode, the arena's allocation of a chunk fails); nothing
     *                                   is charged to the budget
     * @throws IllegalStateException     if the allocator is closed
     */
    public long allocate(long size) {
        if (closed) throw closedException();
        if (size <= 0 || size > maxAllocation) {
            throw new IllegalArgumentException("allocation size " + size + " is not in [1, "
                    + maxAllocation + "]");
        }
        try {
            return take(size);
        } catch (FloeOutOfMemoryException e) {
            return takeAfterTrim(size, e);
        }
    }

    private long take(long size) {
        return size <= SizeClasses.MAX_SMALL ? caches.allocate(heap.classes.classOf(size)) : large.allocate(size);
    }

    /**
     * The usable bytes of the block a request of {@code size} bytes gets: the block size of its
     * size class (standard or {@linkplain Builder#exactSizeClasses exact}), or, above
     * {@link SizeClasses#MAX_SMALL}, the size rounded up to whole pages. A layer that can use the
     * whole block (room to grow in place) asks for this much.
     *
     * @throws IllegalArgumentException if {@code size <= 0} or {@code size > maxAllocation()}
     */
    public long usableSizeFor(long size) {
        if (size <= 0 || size > maxAllocation) {
            throw new IllegalArgumentException("allocation size " + size + " is not in [1, " + maxAllocation + "]");
        }
        return size <= SizeClasses.MAX_SMALL ? heap.classes.blockSize(heap.classes.classOf(size)) : LargeRuns.pageRound(size);
    }

    /** The block sizes of the exact size classes this allocator added to the standard ones (empty by default). */
    public int[] exactSizeClasses() {
        return heap.classes.exactSizes();
    }

    /**
     * The budget or address space ran out, but cached free blocks may hold superblocks that a
     * flush would release (and give back to the budget): flush the stripes no call holds now
     * (never waiting, so allocation stays lock-free) and try once more.
     */
    private long takeAfterTrim(long size, FloeOutOfMemoryException e) {
        if (caches.cachedBytes() == 0) throw e;
        caches.flushIdle();
        return take(size);
    }

    /**
     * Frees the block at {@code offset}. Its memory stays readable (and may read as zeros once
     * its superblock is released) until the allocator closes.
     *
     * @throws IllegalFreeException  if {@code offset} is not the start of a currently allocated
     *                               block (double free, inside a block, never allocated)
     * @throws IllegalStateException if the allocator is closed
     */
    public void free(long offset) {
        if (closed) throw closedException();
        Superblock sb = release(offset);
        if (sb != null) caches.free(sb, offset);
    }

    /**
     * Frees the blocks at {@code offsets[from..to)}, in order, as that many calls of
     * {@link #free(long)} would, but takes one cache stripe for all of them instead of one per
     * block (what a reclamation scheme's drain does with a batch of retired blocks).
     *
     * @throws IllegalFreeException      at the first offset that is not the start of a currently
     *                                   allocated block; the blocks before it are freed, those
     *                                   after it are not
     * @throws IndexOutOfBoundsException if {@code from..to} is not a range of {@code offsets}
     * @throws IllegalStateException     if the allocator is closed
     */
    public void free(long[] offsets, int from, int to) {
        if (closed) throw closedException();
        Objects.checkFromToIndex(from, to, offsets.length);
        caches.freeAll(offsets, from, to, releaser);
    }

    /**
     * The checks of a free and its point of no return: clears the live byte of the small block
     * at {@code offset} and returns its superblock (the caller hands the block to the caches),
     * or frees the large run at {@code offset} and returns null.
     *
     * @throws IllegalFreeException if {@code offset} is not the start of a currently allocated block
     */
    private Superblock release(long offset) {
        Superblock sb = heap.superblockOf(offset);
        if (sb != null) {
            int i = sb.blockIndex(offset);
            if (i < 0) {
                throw new IllegalFreeException("offset " + offset + " is inside a block of "
                        + sb.blockSize + " bytes, not at its start");
            }
            if (!sb.clearLive(i)) {
                throw new IllegalFreeException("offset " + offset
                        + " is not allocated (double free, or never allocated)");
            }
            return sb;
        }
        if (offset < heap.smallLimit || !large.free(offset)) {
            throw new IllegalFreeException("offset " + offset + " was not allocated by " + name);
        }
        return null;
    }

    /**
     * Usable bytes of the allocated block at {@code offset} (its size class or page run).
     *
     * @throws IllegalArgumentException if {@code offset} is not the start of a currently allocated block
     * @throws IllegalStateException    if the allocator is closed
     */
    public long usableSize(long offset) {
        if (closed) throw closedException();
        Superblock sb = heap.superblockOf(offset);
        if (sb != null) {
            int i = sb.blockIndex(offset);
            if (i >= 0 && sb.isLive(i)) return sb.blockSize;
        } else if (offset >= heap.smallLimit) {
            long l = large.length(offset);
            if (l > 0) return l;
        }
        throw new IllegalArgumentException("offset " + offset + " is not an allocated block");
    }

    /**
     * The block size if {@code offset} is the start of a block in a size-class superblock, live or
     * free, else 0; never throws. Superblocks keep their block size for the life of their address
     * range (invariant 3; not if {@link #recarvesEmptySuperblocks()}, where a re-carved superblock
     * answers with its new size), so a layer that stores block offsets (Nova's safe pointers) can check
     * with this, before touching memory, that an offset it was handed — stale or forged — lands on
     * a real block boundary and how many bytes that block holds. Large runs are not blocks here:
     * their boundaries move as runs split and coalesce.
     */
    public int blockSizeAt(long offset) {
        Superblock sb = heap.superblockOf(offset);
        if (sb == null) return 0;
        return sb.blockIndex(offset) >= 0 ? sb.blockSize : 0;
    }

    /**
     * A view of the whole usable block at {@code offset}. It dies with the allocator: after
     * {@link #close()} every access through it throws {@link IllegalStateException}.
     *
     * @throws IllegalArgumentException if {@code offset} is not the start of a currently allocated block
     * @throws IllegalStateException    if the allocator is closed
     */
    public MemorySegment segment(long offset) {
        return region.slice(offset, usableSize(offset));
    }

    /**
     * A view of the first {@code length} bytes of the block at {@code offset} (see {@link #segment(long)}).
     *
     * @throws IllegalArgumentException  if {@code offset} is not the start of a currently allocated block
     * @throws IndexOutOfBoundsException if {@code length} is negative or above the block's usable size
     * @throws IllegalStateException     if the allocator is closed
     */
    public MemorySegment segment(long offset, long length) {
        long usable = usableSize(offset);
        if (length < 0 || length > usable) {
            throw new IndexOutOfBoundsException("length " + length + " exceeds the block's "
                    + usable + " usable bytes");
        }
        return region.slice(offset, length);
    }

    /**
     * The region all offsets refer to (word accessors for the layers above). It belongs to the
     * allocator: close the allocator, never the region itself (an allocator whose region was
     * closed under it would still hand out offsets, none of them usable).
     */
    public Region region() {
        return region;
    }

    /** The largest request {@link #allocate} accepts. */
    public long maxAllocation() {
        return maxAllocation;
    }

    /** The name given to {@link Builder#name}, or the generated {@code floe-N}. */
    public String name() {
        return name;
    }

    /**
     * Returns every cached free block to its superblock, so that superblocks whose blocks are all
     * free are released to the OS now rather than when caches overflow. Safe to call at any time
     * while the allocator is open, from any thread; it waits for each cache stripe's current user
     * to finish its call (parking, also on an interrupted thread, whose interrupt it keeps).
     *
     * @throws IllegalStateException if the allocator is closed
     */
    public void trim() {
        if (closed) throw closedException();
        caches.trim();
    }

    /** Cache bins created so far over all stripes (tests: bins are created on first use). */
    int cacheBinsCreated() {
        return caches.binsCreated();
    }

    /**
     * A snapshot of this allocator's memory (see {@link MemoryStats}).
     *
     * @throws IllegalStateException if the allocator is closed
     */
    public MemoryStats stats() {
        if (closed) throw closedException();
        long full = 0, part = 0, empty = 0;
        SizeClassTable classTable = heap.classes;
        long[] perClass = new long[classTable.count()];
        int carved = heap.carved();
        for (int i = 1; i < carved; i++) {
            Superblock sb = heap.directory.get(i);
            if (sb == null) continue; // being carved right now
            switch (Anchor.state(sb.anchor())) {
                case Anchor.FULL -> { full++; perClass[sb.sizeClass]++; }
                case Anchor.PARTIAL -> { part++; perClass[sb.sizeClass]++; }
                default -> empty++;
            }
        }
        List<MemoryStats.ClassStats> classes = new ArrayList<>();
        long live = 0;
        for (int c = 0; c < perClass.length; c++) {
            long blocks = caches.liveBlocks(c);
            live += blocks * classTable.blockSize(c);
            if (blocks != 0 || perClass[c] != 0) {
                classes.add(new MemoryStats.ClassStats(c, classTable.blockSize(c), blocks, perClass[c]));
            }
        }
        long largeBytes = large.liveBytes();
        long resident = region.residentBytes(0, (long) carved << heap.superblockShift)
                + region.residentBytes(heap.smallLimit, large.frontier());
        return new MemoryStats(region.mode(), region.size(), live + largeBytes, budget.committed(),
                resident, budget.cap(), caches.cachedBytes(), full, part, empty,
                large.liveRuns(), largeBytes, heap.releases(), List.copyOf(classes));
    }

    private long liveBytes() {
        long live = large.liveBytes();
        SizeClassTable classTable = heap.classes;
        for (int c = 0; c < classTable.count(); c++) live += caches.liveBlocks(c) * classTable.blockSize(c);
        return live;
    }

    /** How the region is backed: {@link RegionMode#MAPPED} or {@link RegionMode#ARENA_CHUNKS} (never AUTO). */
    public RegionMode mode() {
        return region.mode();
    }

    /** How emptied superblocks are released ({@link Builder#releaseMethod}). */
    public ReleaseMethod releaseMethod() {
        return region.releaseMethod();
    }

    /**
     * Whether emptied superblocks may be re-carved for another size class
     * ({@link Builder#recarveEmptySuperblocks}); if not, every block start stays a block start of
     * the same size for the life of the region (ARCHITECTURE.md invariant 3).
     */
    public boolean recarvesEmptySuperblocks() {
        return recarve;
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Unmaps the region and unregisters the MBean. Only call it when no thread can still use the
     * allocator or any view of it; afterwards {@link #allocate}, {@link #free},
     * {@link #usableSize}, {@link #segment}, {@link #trim}, {@link #stats}, every view and every
     * region accessor fail with {@link IllegalStateException} ({@link #blockSizeAt} and the
     * configuration getters keep answering). A second close fails the same way.
     *
     * @throws IllegalStateException if the allocator is already closed
     */
    @Override
    public synchronized void close() {
        if (closed) throw closedException();
        closed = true;
        if (mbeanName != null) {
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbeanName);
            } catch (JMException ignored) {
                // already gone: nothing to undo
            }
        }
        region.close();
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("Floe allocator '" + name + "' is closed");
    }

    private ObjectName registerMBean() {
        try {
            ObjectName on = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(name));
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            server.registerMBean(new AllocatorMXBeanImpl(this), on);
            return on;
        } catch (JMException e) {
            System.getLogger("dev.floe.memory").log(System.Logger.Level.DEBUG,
                    "Floe allocator " + name + ": MBean not registered: " + e);
            return null;
        }
    }

    /** Configuration of a {@link FloeAllocator}. */
    public static final class Builder {
        private long regionSize = DEFAULT_REGION_SIZE;
        private long superblockSize = DEFAULT_SUPERBLOCK_SIZE;
        private long budget = Long.MAX_VALUE;
        private RegionMode mode = RegionMode.AUTO;
        private String name;
        private int stripes;
        private boolean jmx = true;
        private boolean recarve;
        private ReleaseMethod releaseMethod = ReleaseMethod.MADVISE;
        private long preTouch;
        private SizeClassTable classes = SizeClassTable.STANDARD;

        private Builder() {}

        /**
         * How emptied superblocks give their memory back (default {@link ReleaseMethod#MADVISE});
         * {@link ReleaseMethod#SHARED_FRAME} needs a {@link RegionMode#MAPPED} region, else
         * {@link #build()} throws {@link IllegalArgumentException}.
         */
        public Builder releaseMethod(ReleaseMethod method) {
            this.releaseMethod = java.util.Objects.requireNonNull(method);
            return this;
        }

        /**
         * Address space to reserve (default 256 GiB); a multiple of the superblock size, at least 8
         * of them. The lower half holds the superblocks, the upper half the large runs. Reserving
         * costs no memory, but the lower half must hold every superblock ever carved: one carved
         * for a size class keeps that class until the region closes (invariant 3, unless
         * {@link #recarveEmptySuperblocks}), so a workload whose block sizes change over time needs
         * room for the peak of each class, not only the peak of them all together.
         */
        public Builder regionSize(long bytes) {
            this.regionSize = bytes;
            return this;
        }

        /** Superblock size: a power of two from 64 KiB to 8 MiB (default 256 KiB). */
        public Builder superblockSize(long bytes) {
            this.superblockSize = bytes;
            return this;
        }

        /**
         * Cap on committed bytes; beyond it allocations throw {@link FloeOutOfMemoryException}
         * (default: none). It must hold at least one superblock, else {@link #build()} throws
         * {@link IllegalArgumentException}: no block of a size class could ever be allocated.
         *
         * @throws IllegalArgumentException if {@code bytes <= 0}
         */
        public Builder budget(long bytes) {
            if (bytes <= 0) throw new IllegalArgumentException("budget must be positive: " + bytes);
            this.budget = bytes;
            return this;
        }

        /**
         * How the region is backed (default {@link RegionMode#AUTO}: {@link RegionMode#MAPPED} when
         * native access is enabled on Linux, else {@link RegionMode#ARENA_CHUNKS}).
         */
        public Builder mode(RegionMode mode) {
            this.mode = java.util.Objects.requireNonNull(mode);
            return this;
        }

        /**
         * Name used in the MBean and in messages (default {@code floe-N}). If an MBean of that
         * name is already registered (another open allocator with the same name), this allocator
         * registers none and logs it at DEBUG on {@code dev.floe.memory}.
         */
        public Builder name(String name) {
            this.name = java.util.Objects.requireNonNull(name);
            return this;
        }

        /**
         * Number of cache stripes, a power of two up to {@value FloeAllocator#MAX_CACHE_STRIPES} (default: four
         * per core, at least 8, at most 64). A stripe takes about 1 KiB of heap, plus up
         * to 1 KiB for each size class a call through it has used (up to about 26 KiB with all 40).
         *
         * @throws IllegalArgumentException if {@code stripes} is not a power of two in [1, {@value FloeAllocator#MAX_CACHE_STRIPES}]
         */
        public Builder cacheStripes(int stripes) {
            if (stripes <= 0 || Integer.bitCount(stripes) != 1 || stripes > MAX_CACHE_STRIPES) {
                throw new IllegalArgumentException("cache stripes must be a power of two in [1, "
                        + MAX_CACHE_STRIPES + "]: " + stripes);
            }
            this.stripes = stripes;
            return this;
        }

        /**
         * Whether a size class short of superblocks may re-carve an emptied superblock of another
         * class (default false). This gives back fragmentation across classes but breaks the
         * guarantee that a block position keeps its block size (invariant 3); enable it only when
         * every layer that stores offsets can recognise a stale position — Nova's magic-number
         * mode ({@code new Nova(allocator, batch, true)}) can.
         */
        public Builder recarveEmptySuperblocks(boolean enable) {
            this.recarve = enable;
            return this;
        }

        /**
         * Faults in the first {@code bytes} of the small-block area (superblocks are carved from
         * its start, the superblock after the reserved first one) when the allocator is built,
         * capped at the budget and at that area: the
         * off-heap counterpart of {@code -XX:+AlwaysPreTouch}. Allocations there never wait for a
         * first-touch page fault (about 1.5 µs per 4 KiB page on a VM), and the process's RSS
         * includes those bytes from the start. Superblocks released later still go back to the
         * OS and fault in again when reused. Building takes that much longer (mapped regions:
         * one write per page; chunked regions: nothing to do, their memory is resident once
         * committed). Default 0: nothing is touched in advance.
         */
        public Builder preTouch(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("preTouch must not be negative: " + bytes);
            this.preTouch = bytes;
            return this;
        }

        /**
         * Adds size classes of exactly these block sizes (each a multiple of 8 from 8 to
         * {@link SizeClasses#MAX_SMALL}; at most 16 new ones): a request goes to the class with the
         * smallest block that holds it, standard or exact. A size that is a class already (a
         * standard one, or given twice) adds nothing: blocks of that size exist. The standard
         * classes step by a quarter of a power of two, so a block wastes up to a quarter of itself
         * (a 1,088-byte record takes a 1,280-byte block); a structure whose records have one size
         * wastes nothing with that size as a class (fixed-layout structs, an index's rows: the Oak
         * paper's allocator carves exact sizes). Each class in use costs superblocks and cache bins
         * of its own, so add only sizes that many blocks will have. Their class numbers in
         * {@link MemoryStats#classes()} follow the 40 standard ones, in the order given. Replaces
         * the sizes of an earlier call; default none.
         *
         * @throws IllegalArgumentException if a size is out of range, or more than 16 classes
         *                                  would be added
         */
        public Builder exactSizeClasses(int... blockSizes) {
            this.classes = new SizeClassTable(blockSizes.clone());
            return this;
        }

        /** Whether to register the statistics MBean (default true). */
        public Builder jmx(boolean register) {
            this.jmx = register;
            return this;
        }

        /**
         * Reserves the region and opens the allocator.
         *
         * @throws IllegalArgumentException if the superblock size, the region size or the budget
         *                                  is out of range (see their setters), or the release
         *                                  method needs a mode this JVM cannot give
         * @throws NativeMemoryException    if the address space cannot be reserved ({@code mmap})
         */
        public FloeAllocator build() {
            if (Long.bitCount(superblockSize) != 1 || superblockSize < (64 << 10) || superblockSize > (8 << 20)) {
                throw new IllegalArgumentException("superblock size must be a power of two in [64 KiB, 8 MiB]: "
                        + superblockSize);
            }
            if (regionSize < 8 * superblockSize || regionSize % superblockSize != 0
                    || (regionSize >>> Long.numberOfTrailingZeros(superblockSize)) > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("region size must be a multiple of the superblock size, "
                        + "at least 8 superblocks and at most 2^31 of them: " + regionSize);
            }
            if (budget < superblockSize) {
                throw new IllegalArgumentException("budget of " + budget + " bytes is below one superblock ("
                        + superblockSize + " bytes): no block of a size class could ever be allocated");
            }
            return new FloeAllocator(this);
        }
    }
}
