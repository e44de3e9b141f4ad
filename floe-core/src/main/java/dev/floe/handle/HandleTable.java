package dev.floe.handle;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * ALASKA's handle table: an off-heap array of entries, one per handle id, that says where each
 * object is now. One level of indirection: an object moves by changing its entry.
 *
 * <h2>Entry layout (16 bytes)</h2>
 * <pre>
 *  word 0: state   see {@link EntryState}: offset, MOVING, FREE, change count   (CAS)
 *  word 1: meta    version (high 32 bits) | object size in bytes (low 32 bits)  (release store)
 * </pre>
 * The state word changes with every move, cancel and free; the meta word only when an id is
 * (re)used for a new object, and then <em>before</em> its state word goes live (release store
 * of the state after the meta). A reader loads meta, then state, reads, and re-loads both: equal
 * words mean a consistent snapshot (both words carry counters that never repeat in practice).
 *
 * <h2>Growth: chunks that never move</h2>
 * ALASKA reserves the whole table's virtual memory at start; its later code grows the table. We
 * grow it, in chunks of {@value #CHUNK_ENTRIES} entries allocated from the same
 * {@link FloeAllocator} (so the table is off-heap and counted in the allocator's budget), with an
 * on-heap directory of chunk offsets sized for {@code maxHandles}. A chunk never moves once
 * published, so an entry's address is stable and every access is lock-free; the cost is one
 * extra dependent load (the directory) per access. Reserving the whole table would need a second
 * mapping beside the region: we keep every off-heap byte in the one region instead.
 *
 * <h2>Versions: each table starts elsewhere</h2>
 * A fresh entry's meta word holds the version before the table's {@link #firstVersion}, so the
 * first handle of every id carries {@code firstVersion} and each reuse the next one. Tables take
 * their first versions from a process-wide sequence spaced by the golden ratio of 2^32
 * ({@value #VERSION_SPACING}): two spaces hand out the same ids, but a handle of one fails the
 * version check of the other unless one of them reused that id at least
 * {@code 2^32 / (4 × tables made in the process)} times more than the other did (1.6·10^9 with
 * two tables; over 10^4 still with 100,000). Before, every table started at version 1, and a
 * handle of one space named the object with the same id in any other.
 *
 * <h2>Ids</h2>
 * Fresh ids come from a high-water mark (the chunk holding it is initialised to FREE entries
 * and published before the mark passes it: release store of the mark, acquire load by
 * {@link #contains}); ids of freed handles come back, after their deferred free, through a
 * free stack. Both are guarded by one short lock: allocation of a handle is not on the read or
 * write path, and the lock is safe for virtual threads.
 */
final class HandleTable {
    static final int CHUNK_SHIFT = 14;
    static final int CHUNK_ENTRIES = 1 << CHUNK_SHIFT;
    private static final int ENTRY_BYTES = 16;
    /** Distance between the first versions of successive tables: 2^32 / golden ratio, odd. */
    static final int VERSION_SPACING = 0x9E37_79B9;
    /** Tables made so far in this process (for their first versions). */
    private static final java.util.concurrent.atomic.AtomicInteger TABLES = new java.util.concurrent.atomic.AtomicInteger();

    private final FloeAllocator allocator;
    private final Region region;
    private final AtomicLongArray chunks;
    private final long maxIds;
    /** The version of the first handle of every id of this table (never 0). */
    private final int firstVersion;
    /** Ids below this are initialised entries (release store under the lock, acquire loads). */
    private volatile long highWater = 1; // id 0 is never handed out
    private final ReentrantLock lock = new ReentrantLock();
    private int[] freeIds = new int[64]; // guarded by lock
    private int freeCount; // guarded by lock

    HandleTable(FloeAllocator allocator, long maxHandles) {
        // ids are Java ints (the service's allocate, the free list, Handle.of): at most 2^31 - 1
        if (maxHandles < 1 || maxHandles > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("maxHandles must be in [1, 2^31 - 2]: " + maxHandles);
        }
        this.allocator = allocator;
        this.region = allocator.region();
        this.maxIds = maxHandles + 1;
        this.chunks = new AtomicLongArray((int) ((maxIds + CHUNK_ENTRIES - 1) >>> CHUNK_SHIFT));
        int first = 1 + TABLES.getAndIncrement() * VERSION_SPACING; // the first table starts at 1
        this.firstVersion = first == 0 ? 1 : first;
    }

    /** The version of the first handle of each id (see "Versions" in the class comment). */
    int firstVersion() {
        return firstVersion;
    }

    /** The most ids in use at once. */
    long maxHandles() {
        return maxIds - 1;
    }

    /** Whether {@code id} is an initialised entry (any state). */
    boolean contains(long id) {
        return id > 0 && id < highWater;
    }

    private long address(long id) {
        // plain: a chunk slot is set once (release) before highWater's volatile store passes its
        // ids, and every caller checked the id against highWater (contains) first
        return chunks.getPlain((int) (id >>> CHUNK_SHIFT)) + (id & (CHUNK_ENTRIES - 1)) * ENTRY_BYTES;
    }

    long state(long id) {
        return region.getLongVolatile(address(id));
    }

    long meta(long id) {
        return region.getLongAcquire(address(id) + 8);
    }

    boolean casState(long id, long expected, long value) {
        return region.compareAndSetLong(address(id), expected, value);
    }

    static int version(long meta) {
        return (int) (meta >>> 32);
    }

    static int size(long meta) {
        return (int) meta;
    }

    /**
     * Makes entry {@code id} (FREE, owned by the caller) name a new object of {@code size} bytes at
     * {@code offset} and returns the version of its handle: the next version, never 0. Meta first,
     * then the state with a release store, so whoever sees the state live sees the new meta.
     */
    int publish(int id, int size, long offset) {
        long a = address(id);
        // plain loads: the caller owns this FREE entry (its id came through the lock), no one writes it
        int version = version(region.getLongPlain(a + 8)) + 1;
        if (version == 0) version = 1;
        region.setLongRelease(a + 8, ((long) version << 32) | (size & 0xFFFF_FFFFL));
        region.setLongRelease(a, EntryState.live(region.getLongPlain(a), offset));
        return version;
    }

    /**
     * A free id (its entry is FREE), reusing freed ones first; grows the table if needed. Returns
     * 0 (never an id) if {@link #maxHandles()} ids are in use.
     */
    int acquireId() {
        lock.lock();
        try {
            if (freeCount > 0) return freeIds[--freeCount];
            long id = highWater;
            if (id >= maxIds) return 0;
            int c = (int) (id >>> CHUNK_SHIFT);
            if (chunks.getPlain(c) == 0) {
                long base = allocator.allocate((long) CHUNK_ENTRIES * ENTRY_BYTES);
                for (int i = 0; i < CHUNK_ENTRIES; i++) {
                    region.setLongPlain(base + (long) i * ENTRY_BYTES, EntryState.INITIAL);
                    region.setLongPlain(base + (long) i * ENTRY_BYTES + 8, (long) (firstVersion - 1) << 32);
                }
                chunks.setRelease(c, base);
            }
            highWater = id + 1; // volatile store: publishes the chunk and its initialised entries
            return (int) id;
        } finally {
            lock.unlock();
        }
    }

    /** Gives back an id whose entry is FREE and that no thread can reach any more. */
    void releaseId(int id) {
        lock.lock();
        try {
            if (freeCount == freeIds.length) freeIds = java.util.Arrays.copyOf(freeIds, freeCount * 2);
            freeIds[freeCount++] = id;
        } finally {
            lock.unlock();
        }
    }

    /** Frees the table's chunks (the owning space is closed and unreachable). */
    void close() {
        for (int c = 0; c < chunks.length(); c++) {
            long base = chunks.getPlain(c);
            if (base != 0) allocator.free(base);
        }
    }
}
