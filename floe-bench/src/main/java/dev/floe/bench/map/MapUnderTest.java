package dev.floe.bench.map;

import java.util.Map;

/**
 * An ordered concurrent map of the benchmark's keys and values, as the workloads use it. Every
 * operation takes the calling thread's {@link Probe}, set to the key; implementations copy the
 * probe's key and value when they store them.
 */
interface MapUnderTest extends AutoCloseable {

    /** Maps the key to the probe's value (no old value returned). */
    void put(Probe p);

    /** Maps the key to the probe's value unless present; true if it inserted. */
    boolean putIfAbsent(Probe p);

    /** Reads the value's first word without copying the value (where the map allows); true if found. */
    boolean zcGet(Probe p);

    /** Obtains a private on-heap copy of the value and reads its first word; true if found. */
    boolean getCopy(Probe p);

    /**
     * Adds one to the value's first word, atomically (the 8-byte in-place update); inserts the
     * probe's value if the key is absent (put-if-absent-compute-if-present, CSLM's merge).
     */
    void compute(Probe p);

    /** Removes the key; true if it was present. */
    boolean remove(Probe p);

    /**
     * Visits up to {@code n} entries from the probe's key (inclusive), ascending or descending,
     * reading each value's first word; returns the entries visited.
     */
    int scan(Probe p, int n, boolean descending);

    /** Entries now. */
    long size();

    /** Off-heap bytes the map's allocator has committed (0 for on-heap maps). */
    long offheapCommittedBytes();

    /** Off-heap bytes in live blocks (deleted-but-unreclaimed ones included). */
    long offheapLiveBytes();

    /** Implementation-specific figures for {@code extra} (e.g. Oak's footprint estimate). */
    default Map<String, Double> extra() {
        return Map.of();
    }

    /** Releases the map's memory; the map is unusable afterwards. */
    @Override
    void close();
}
