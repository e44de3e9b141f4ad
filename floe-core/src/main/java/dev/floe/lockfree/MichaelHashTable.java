package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.lang.invoke.VarHandle;

/**
 * Michael's lock-free hash table: a fixed array of buckets, each the head word of a Harris–Michael
 * list ({@link HarrisMichaelCore}). The bucket count is fixed at construction for a load factor of
 * 0.75 at the expected size (the paper's setting); the table never resizes, so more keys than
 * expected only make chains longer. The bucket array is one off-heap allocation (a large run for
 * big tables), zeroed before use and freed by {@link #close}.
 */
public final class MichaelHashTable implements LockFreeLongMap {
    /** The load factor the bucket count is sized for. */
    public static final double LOAD_FACTOR = 0.75;

    private final HarrisMichaelCore core;
    private final FloeAllocator alloc;
    private final long buckets;
    private final long bucketCount;
    private volatile boolean closed;

    /**
     * @param expectedSize keys the table is sized for ({@code >= 1}); bucket count =
     *                     ceil(expectedSize / 0.75)
     * @throws IllegalArgumentException if {@code expectedSize < 1} or the bucket array exceeds
     *                                  the allocator's largest allocation
     */
    public MichaelHashTable(Reclamation reclamation, long expectedSize) {
        if (expectedSize < 1) throw new IllegalArgumentException("expected size must be >= 1: " + expectedSize);
        this.core = new HarrisMichaelCore(reclamation);
        this.alloc = reclamation.allocator();
        this.bucketCount = (long) Math.ceil(expectedSize / LOAD_FACTOR);
        if (bucketCount > alloc.maxAllocation() / Long.BYTES) {
            throw new IllegalArgumentException("expected size " + expectedSize + " needs "
                    + bucketCount + " buckets, more than one allocation of " + alloc.maxAllocation() + " bytes holds");
        }
        this.buckets = alloc.allocate(bucketCount * Long.BYTES);
        alloc.region().slice(buckets, bucketCount * Long.BYTES).fill((byte) 0);
        VarHandle.releaseFence(); // the zeroed buckets precede the publication of this table
    }

    /** Number of buckets. */
    public long bucketCount() {
        return bucketCount;
    }

    private long bucket(long key) {
        long h = key * 0x9E37_79B9_7F4A_7C15L; // Fibonacci hashing: spreads sequential keys
        h ^= h >>> 29;
        return buckets + Long.remainderUnsigned(h, bucketCount) * Long.BYTES;
    }

    @Override
    public boolean insert(long key, long value) {
        checkOpen();
        return core.insert(bucket(key), key, value);
    }

    @Override
    public boolean remove(long key) {
        checkOpen();
        return core.remove(bucket(key), key);
    }

    @Override
    public boolean contains(long key) {
        checkOpen();
        return core.contains(bucket(key), key);
    }

    @Override
    public long get(long key, long absent) {
        checkOpen();
        return core.get(bucket(key), key, absent);
    }

    @Override
    public long size() {
        checkOpen();
        long n = 0;
        for (long i = 0; i < bucketCount; i++) n += core.count(buckets + i * Long.BYTES);
        return n;
    }

    @Override
    public Reclamation reclamation() {
        return core.reclamation();
    }

    @Override
    public long incarnationMismatches() {
        return core.incarnationMismatches();
    }

    @Override
    public synchronized void close() {
        checkOpen();
        closed = true;
        for (long i = 0; i < bucketCount; i++) core.freeAll(buckets + i * Long.BYTES);
        alloc.free(buckets);
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the hash table is closed");
    }
}
