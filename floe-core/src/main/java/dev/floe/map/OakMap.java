package dev.floe.map;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.SizeClasses;
import dev.floe.reclaim.Nova;
import java.lang.ref.Cleaner;
import java.util.Objects;

/**
 * Floe's ordered concurrent off-heap key-value map, after Oak (Meir et al., "Oak: a Scalable
 * Off-Heap Allocated Key-Value Map", PPoPP 2020), with keys and values reclaimed through Nova
 * (the Nova paper's "Nova all" configuration).
 *
 * <ul>
 *   <li>The legacy API: this class is a complete {@link java.util.concurrent.ConcurrentNavigableMap}
 *       (see {@link MapView} for the atomicity of its compute methods).</li>
 *   <li>The zero-copy API: {@link #zc()} returns buffers over the off-heap bytes instead of
 *       objects, updates that return nothing, and in-place atomic compute.</li>
 * </ul>
 * Keys and values live off-heap in Nova slices; the map's metadata (chunks of entries, an index)
 * is on-heap; see {@link InternalOakMap} for the algorithm. A key or a value may be as large as
 * the allocator can give one block, within an {@code int} ({@link #maxKeySize()},
 * {@link #maxValueSize()}): keys and values above about 16 KiB (the allocator's largest size
 * class) live out of line, in a large block owned by their Nova slice, and are read, written and
 * reclaimed through the same protocols as small ones.
 *
 * <h2>Memory</h2>
 * By default every map shares one process-wide allocator and Nova instance, so creating a map is
 * cheap (an empty map holds one small chunk on-heap and nothing off-heap) and thousands of maps
 * are fine. {@link Builder#nova} shares another one; {@link Builder#budget} gives the map an
 * allocator of its own limited to that many bytes: past it, updates throw
 * {@link dev.floe.memory.FloeOutOfMemoryException} and change nothing. {@link #close()} releases
 * the map's off-heap memory; a map dropped without close is released by a {@link Cleaner}. Its
 * views and their iterators keep it reachable; its buffers ({@link OakReadBuffer}) do not: one
 * read after the map became unreachable (and was released) throws {@link IllegalStateException}.
 *
 * <p>A call on the map keeps it reachable until the call returns. Compiled code stops treating
 * {@code this} as reachable after a method's last read of it, and a map method reads its fields
 * first and the map's memory after; so the last call on a map nothing else references (a method
 * that ends with {@code return map.get(k)}) could find the memory released under it once a user
 * codec or comparator started a GC. Every public method of the map, its views, sets and
 * iterators that reaches the map's memory therefore ends with
 * {@link java.lang.ref.Reference#reachabilityFence} of {@code this} in a {@code finally}
 * (a view or iterator holds its map). The fence only keeps the reference in the compiled
 * frame; zero-copy {@code get} measured the same with and without it (docs/map.md;
 * {@code OperationKeepsMapReachableTest}).
 */
public final class OakMap<K, V> extends MapView<K, V> implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static volatile Nova sharedNova;

    private final Cleaner.Cleanable cleanable;
    private final ZeroCopyMap<K, V> zc;

    private OakMap(InternalOakMap<K, V> core) {
        super(null, core, KeyRange.ALL);
        this.cleanable = CLEANER.register(this, new Release(core));
        this.zc = new ZeroCopyMap<>(this, core, KeyRange.ALL);
    }

    /** Starts a builder. */
    public static <K, V> Builder<K, V> builder(OakSerializer<K> keySerializer, OakSerializer<V> valueSerializer,
                                               OakComparator<K> comparator) {
        return new Builder<>(keySerializer, valueSerializer, comparator);
    }

    /** The zero-copy API over this map. */
    public ZeroCopyMap<K, V> zc() {
        core.checkOpen();
        return zc;
    }

    /**
     * Off-heap bytes held by the map's live keys and values (slice blocks, headers included); an
     * O(1) estimate that ignores removed slices not yet reclaimed and the allocator's own overhead.
     */
    public long offHeapFootprint() {
        return core.closed ? 0 : Math.max(0, core.offHeapBytes.sum());
    }

    /** Largest serialized key, in bytes: what one allocator block holds, within an {@code int}. */
    public int maxKeySize() {
        return core.keys.maxKey;
    }

    /** Largest serialized value, in bytes. */
    public int maxValueSize() {
        return core.values.maxValue;
    }

    /**
     * The allocator block a value of {@code valueBytes} serialized bytes takes when it has a size
     * class of its own: the value, the map's 16 bytes of lock word and forward pointer, and Nova's
     * header (8 bytes; 16 in magic-number mode). Give this size to
     * {@link FloeAllocator.Builder#exactSizeClasses} to build an allocator for maps whose values
     * have that size (see {@link Builder#exactValueSize}).
     *
     * @throws IllegalArgumentException if {@code valueBytes} is negative or the block would exceed
     *                                  the largest size class (such values live out of line, in
     *                                  page runs)
     */
    public static int valueBlockBytes(int valueBytes, boolean novaMagicNumbers) {
        int nova = Nova.headerBytes(novaMagicNumbers);
        long block = (long) valueBytes + ValueSlices.HEADER + nova;
        if (valueBytes < 0 || block > SizeClasses.MAX_SMALL) {
            throw new IllegalArgumentException("a value of " + valueBytes + " bytes has no size class: values take 0 to "
                    + (SizeClasses.MAX_SMALL - ValueSlices.HEADER - nova) + " bytes in a block, larger ones a page run");
        }
        return (int) ((block + 7) & -8);
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return core.closed;
    }

    /**
     * Releases the map's off-heap memory. Idempotent. Any later use of the map, its views, buffers
     * or iterators throws {@link IllegalStateException}, making a view and {@code comparator()}
     * included; only {@code close}, {@link #isClosed}, {@link #offHeapFootprint} (then 0),
     * {@link #maxKeySize} and {@link #maxValueSize} still answer. Operations racing with close
     * may fail with it too (they never read memory of another map).
     */
    @Override
    public void close() {
        core.closed = true;
        cleanable.clean();
    }

    @Override
    public String toString() {
        core.checkOpen();
        return super.toString();
    }

    /** The cleanup action: holds the core, never the map (or the map could not become unreachable). */
    private record Release(InternalOakMap<?, ?> core) implements Runnable {
        @Override
        public void run() {
            core.closed = true;
            core.releaseAll();
        }
    }

    static Nova sharedNova() {
        Nova n = sharedNova;
        if (n == null) {
            synchronized (OakMap.class) {
                n = sharedNova;
                if (n == null) {
                    FloeAllocator a = FloeAllocator.builder().name("floe-map-shared").build();
                    sharedNova = n = new Nova(a);
                }
            }
        }
        return n;
    }

    /** Builds an {@link OakMap}. */
    public static final class Builder<K, V> {
        private final OakSerializer<K> keySerializer;
        private final OakSerializer<V> valueSerializer;
        private final OakComparator<K> comparator;
        private Nova nova;
        private long budget;
        private int maxChunkEntries = 4096;
        private int firstChunkEntries = 16;
        private boolean reclaim = true;
        private int exactValueSize = -1;

        private Builder(OakSerializer<K> keySerializer, OakSerializer<V> valueSerializer, OakComparator<K> comparator) {
            this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
            this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
            this.comparator = Objects.requireNonNull(comparator, "comparator");
        }

        /**
         * Shares {@code nova} (and its allocator) with other maps or structures. Default: one
         * process-wide instance. Not combinable with {@link #budget}.
         */
        public Builder<K, V> nova(Nova nova) {
            this.nova = Objects.requireNonNull(nova, "nova");
            return this;
        }

        /**
         * Gives the map an allocator of its own that holds at most {@code bytes} of off-heap
         * memory (closed with the map). Its region reserves 16 times the largest power of two
         * {@code <= bytes} of address space, at least 64 MiB (8 to 16 times the budget); from a
         * 32 GiB power of two on, at least 256 GiB and 4 times it (2 to 8 times the budget).
         * Nothing is committed for it. Half of it is for size classes: a superblock keeps the
         * size class it was carved for, so values whose sizes shift over the map's life need
         * room for the peak of every class they used (here, 4 to 8 full budgets; 8 when the
         * budget is a power of two).
         */
        public Builder<K, V> budget(long bytes) {
            if (bytes <= 0) throw new IllegalArgumentException("budget must be positive: " + bytes);
            this.budget = bytes;
            return this;
        }

        /** Largest chunk, in entries (default 4096, as in Oak); at least 4. */
        public Builder<K, V> maxChunkEntries(int entries) {
            if (entries < 4) throw new IllegalArgumentException("maxChunkEntries must be at least 4: " + entries);
            this.maxChunkEntries = entries;
            return this;
        }

        /**
         * Whether removed keys and values are reclaimed (default true). False leaks them: only a
         * baseline for measuring what reclamation costs.
         */
        public Builder<K, V> reclaim(boolean reclaim) {
            this.reclaim = reclaim;
            return this;
        }

        /**
         * Values will mostly be {@code bytes} serialized bytes (fixed-layout records, an index's
         * rows): each such value then takes a block of exactly its size (an exact size class,
         * {@link FloeAllocator.Builder#exactSizeClasses}) instead of the next standard class, which
         * can be up to a quarter larger; other sizes take standard classes as usual. The map's own
         * allocator ({@link #budget}) gets the class. A shared allocator ({@link #nova}, or the
         * process-wide default) cannot change after it is built: {@link #build()} then requires
         * that it has the class, {@link OakMap#valueBlockBytes} bytes, and throws otherwise.
         *
         * @throws IllegalArgumentException if such values would not fit a size class (see
         *                                  {@link OakMap#valueBlockBytes})
         */
        public Builder<K, V> exactValueSize(int bytes) {
            valueBlockBytes(bytes, false); // checked again in build() with the Nova's header
            this.exactValueSize = bytes;
            return this;
        }

        /**
         * Builds the map.
         *
         * @throws IllegalStateException    if both {@link #nova} and {@link #budget} were given, or
         *                                  {@link #exactValueSize} was given for a shared allocator
         *                                  that lacks its size class
         * @throws IllegalArgumentException if {@link #exactValueSize}'s block does not fit a size
         *                                  class with a magic-number {@link #nova}'s larger header
         */
        public OakMap<K, V> build() {
            if (nova != null && budget > 0) throw new IllegalStateException("choose either nova(...) or budget(...)");
            Nova n = nova;
            FloeAllocator own = null;
            if (budget > 0) {
                // Address space, not memory: a superblock keeps the size class it was carved for,
                // so a map whose value sizes shift needs room for the peak of every class it used.
                // 16 x span (8 to 16 times the budget, at least 64 MiB); past a 16 GiB span,
                // max(256 GiB, 4 x span).
                long span = Long.highestOneBit(budget);
                long region = span <= (16L << 30) ? Math.max(64L << 20, span << 4) : Math.max(256L << 30, span << 2);
                FloeAllocator.Builder ab = FloeAllocator.builder().name("floe-map").budget(budget).regionSize(region);
                if (exactValueSize >= 0) ab.exactSizeClasses(valueBlockBytes(exactValueSize, false));
                own = ab.build();
                n = new Nova(own);
            } else if (n == null) {
                n = sharedNova();
            }
            if (exactValueSize >= 0 && own == null) {
                int block = valueBlockBytes(exactValueSize, n.magicNumbers());
                if (n.allocator().usableSizeFor(block) != block) {
                    throw new IllegalStateException("values of " + exactValueSize + " bytes need an exact size class of "
                            + block + " bytes, which the shared allocator lacks: give the map budget(...), or a nova(...) "
                            + "whose allocator was built with exactSizeClasses(" + block + ")");
                }
            }
            int first = Math.min(firstChunkEntries, maxChunkEntries);
            return new OakMap<>(new InternalOakMap<>(n, own, keySerializer, valueSerializer, comparator,
                    maxChunkEntries, first, reclaim));
        }
    }
}
