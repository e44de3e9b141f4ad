package dev.floe.bench.somar;

/**
 * A concurrent map from key ids to values as the workloads use it. Every operation takes the
 * calling thread's {@link Probe}, set to the key ({@link Probe#key(long)}).
 */
interface BenchMap extends AutoCloseable {

    /** Inserts or overwrites the probe's key with the probe's value; true if it inserted. */
    boolean put(Probe p);

    /** Removes the probe's key; true if it was there. */
    boolean delete(Probe p);

    /** Looks the probe's key up and copies the first bytes of its value out; true if found. */
    boolean get(Probe p);

    /** Entries now (walks the structure: call it when no operation runs). */
    long size();

    /** A probe sized for this structure's keys and values. */
    Probe newProbe();

    /** Off-heap bytes the implementation has committed (0 for on-heap implementations). */
    long offheapCommittedBytes();

    /** Off-heap bytes in live blocks, deleted-but-unreclaimed slices included. */
    long offheapLiveBytes();

    /** Releases the off-heap memory; the map is unusable afterwards. */
    @Override
    void close();
}
