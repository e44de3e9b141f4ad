package dev.floe.reclaim;

/**
 * SOMAR, safe off-heap memory allocation and reclamation (Nova paper, section 2): slices of
 * off-heap memory named by copyable 64-bit safe pointers; every access through a pointer whose
 * slice was deleted (and possibly reused) fails instead of touching the new occupant.
 *
 * <p>{@link Nova} is the default implementation; the epoch-based and hazard-era baselines
 * implement the same interface for comparison.
 */
public interface Somar {
    /** Allocates a slice of {@code length} bytes (contents unspecified); returns its safe pointer. */
    long allocate(long length);

    /** Runs {@code reader} on the slice; {@code onFailure} if it was deleted before or during the read. */
    <R> R readOr(long ptr, SliceReader<R> reader, R onFailure);

    /** Runs {@code reader} on the slice; throws {@link DeletedSliceException} if it was deleted. */
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
     */
    <P, R> R writePrivate(long ptr, SliceWriter<P, R> writer, P param);

    /** Deletes a slice no other thread can reach (e.g. its publication failed). */
    void deletePrivate(long ptr);

    /** Offers every deleted slice to reclamation now (tests, shutdown, memory pressure). */
    void reclaimNow();

    /** Sentinel of the throwing forms; never returned to callers. */
    Object FAILED = new Object();
}
