package dev.floe.reclaim;

/**
 * SOMAR, safe off-heap memory allocation and reclamation (Nova paper, section 2): slices of
 * off-heap memory named by copyable 64-bit safe pointers; every access through a pointer whose
 * slice was deleted (and possibly reused) fails instead of touching the new occupant.
 *
 * <p>{@link Nova} is the default implementation; the epoch-based and hazard-era baselines
 * implement the same interface for comparison.
 *
 * <p>Any {@code long} may be passed as a pointer: one that names no live slice (deleted, reused,
 * forged, {@link SafePointer#NULL}) makes the non-throwing forms return their failure value and
 * the throwing forms throw {@link DeletedSliceException}, without running user code. Readers and
 * writers must not be null ({@link NullPointerException}, whatever the pointer). After the
 * allocator closed, an operation through a pointer that names a block of it throws
 * {@link IllegalStateException}; one that names no block still fails as above.
 */
public interface Somar {
    /**
     * Allocates a slice of {@code length} bytes (contents unspecified); returns its safe pointer.
     *
     * @throws IllegalArgumentException if {@code length} is negative or above the largest slice
     * @throws dev.floe.memory.FloeOutOfMemoryException if the allocator's budget is exhausted
     * @throws IllegalStateException    if the allocator is closed
     */
    long allocate(long length);

    /**
     * Runs {@code reader} on the slice and returns its result; {@code onFailure} if the slice was
     * deleted before the read. Nova's optimistic read also fails when the slice is deleted while
     * the reader runs (its result, or whatever it threw, is discarded); the baselines protect the
     * slice for the read instead, so a delete during it does not fail it.
     */
    <R> R readOr(long ptr, SliceReader<R> reader, R onFailure);

    /** As {@link #readOr}, throwing {@link DeletedSliceException} on failure. */
    default <R> R read(long ptr, SliceReader<R> reader) {
        @SuppressWarnings("unchecked")
        R failed = (R) FAILED;
        R r = readOr(ptr, reader, failed);
        if (r == FAILED) throw new DeletedSliceException(ptr);
        return r;
    }

    /**
     * Runs {@code writer} on the slice, which cannot be reused until it returns; {@code onFailure}
     * if the slice was deleted before the write started.
     */
    <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure);

    /** As {@link #writeOr}, throwing {@link DeletedSliceException} on failure. */
    default <P, R> R write(long ptr, SliceWriter<P, R> writer, P param) {
        @SuppressWarnings("unchecked")
        R failed = (R) FAILED;
        R r = writeOr(ptr, writer, param, failed);
        if (r == FAILED) throw new DeletedSliceException(ptr);
        return r;
    }

    /** Deletes the slice; true for exactly one of any number of concurrent deletes. */
    boolean delete(long ptr);

    /**
     * Writes a slice no other thread can reach yet (just allocated, not yet published): no
     * protection. Calling it on a shared slice is a bug the caller owns.
     *
     * @throws DeletedSliceException if {@code ptr} names no live slice
     */
    <P, R> R writePrivate(long ptr, SliceWriter<P, R> writer, P param);

    /**
     * Deletes a slice no other thread can reach (e.g. its publication failed).
     *
     * @throws DeletedSliceException if {@code ptr} names no live slice (already deleted, by either
     *                               form); if a {@link #delete} races with it after all (the slice
     *                               was not private), exactly one of the two succeeds, as for two
     *                               {@code delete}s
     */
    void deletePrivate(long ptr);

    /**
     * Offers every deleted slice to reclamation now (tests, shutdown, memory pressure).
     *
     * @throws IllegalStateException if the allocator closed while deleted slices were waiting
     */
    void reclaimNow();

    /**
     * Sentinel of the throwing forms; never returned to callers. A reader or writer must not
     * return it: the throwing form would take it for a failure.
     */
    Object FAILED = new Object();
}
