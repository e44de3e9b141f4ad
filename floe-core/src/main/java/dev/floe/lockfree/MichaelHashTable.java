package dev.floe.lockfree;

/**
 * Michael's lock-free hash table: a fixed array of buckets, each the head word of a Harris–Michael
 * list ({@link HarrisMichaelCore}). The bucket count is fixed at construction for a load factor of
 * 0.75 at the expected size (the paper's setting); the table never resizes, so more keys than
 * expected only make chains longer. The bucket array is the head array of {@link ListHeads}.
 */
public final class MichaelHashTable extends ListHeads {
    /** The load factor the bucket count is sized for. */
    public static final double LOAD_FACTOR = 0.75;

    /**
     * @param expectedSize keys the table is sized for ({@code >= 1}); bucket count =
     *                     ceil(expectedSize / 0.75)
     * @throws IllegalArgumentException if {@code expectedSize < 1} or the bucket array exceeds
     *                                  the allocator's largest allocation
     * @throws dev.floe.memory.FloeOutOfMemoryException if the bucket array exceeds the
     *                                  allocator's budget
     * @throws IllegalStateException    if the allocator is closed
     */
    public MichaelHashTable(Reclamation reclamation, long expectedSize) {
        super(reclamation, bucketsFor(expectedSize), "hash table");
    }

    private static long bucketsFor(long expectedSize) {
        if (expectedSize < 1) throw new IllegalArgumentException("expected size must be >= 1: " + expectedSize);
        return (long) Math.ceil(expectedSize / LOAD_FACTOR);
    }

    /** Number of buckets. */
    public long bucketCount() {
        return headCount;
    }

    @Override
    long headOf(long key) {
        long h = key * 0x9E37_79B9_7F4A_7C15L; // Fibonacci hashing: spreads sequential keys
        h ^= h >>> 29;
        return heads + Long.remainderUnsigned(h, headCount) * Long.BYTES;
    }
}
