package dev.floe.bench.defrag;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import java.lang.foreign.MemorySegment;

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

    /**
     * Runs the store's background work once now (a defragmentation pass), so that a warm-up also
     * compiles the code the measured run's background work will use; nothing for stores without any.
     */
    default void runBackgroundWorkOnce() {}

    /** Suite-specific numbers for {@code extra} (service statistics), at the end of a run. */
    java.util.Map<String, Double> extra();

    @Override
    void close();

    /** Writes the value pattern of {@code key}: every byte {@code (byte) key}, then {@code key} in the first and last word. */
    static void fill(MemorySegment value, long key) {
        value.fill((byte) key);
        value.set(JAVA_LONG, 0, key);
        value.set(JAVA_LONG_UNALIGNED, value.byteSize() - 8, key);
    }

    /** The check sum a get returns: the first word plus the last. */
    static long checksum(MemorySegment value) {
        return value.get(JAVA_LONG, 0) + value.get(JAVA_LONG_UNALIGNED, value.byteSize() - 8);
    }
}
