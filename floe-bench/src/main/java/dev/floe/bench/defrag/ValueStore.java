package dev.floe.bench.defrag;

/**
 * Where the LRU cache keeps its values, as one of the suite's implementations: handles with the
 * defragmenting service on or off, or fixed Nova slices. Values are referenced by a {@code long}
 * (a handle or a safe pointer). One thread uses a store; the service, if any, runs beside it.
 */
interface ValueStore extends AutoCloseable {
    /** A new value of {@code size} bytes filled with a pattern derived from {@code key}. */
    long put(int size, int key);

    /** Reads the value (first and last word, as a check sum). */
    long get(long ref);

    /** Frees the value. */
    void remove(long ref);

    /** Physical memory of the allocator's region now (resident pages, mincore). */
    long residentBytes();

    /** Committed and live bytes of the store, for the JSON's off-heap figures. */
    long committedBytes();

    long liveBytes();

    /** Suite-specific numbers for {@code extra} (service statistics), at the end of a run. */
    java.util.Map<String, Double> extra();

    @Override
    void close();
}
