package dev.floe.lockfree;

/**
 * A lock-free set of {@code long} keys, each with a {@code long} value fixed at insertion, whose
 * nodes live off-heap in a {@link dev.floe.memory.FloeAllocator} and are reclaimed by a
 * {@link Reclamation}. Every operation is linearizable and lock-free; any number of platform or
 * virtual threads may call them concurrently. Every {@code long} is a valid key and value.
 *
 * <p>Publish the structure to other threads safely (a thread start, a volatile field, a
 * concurrent collection). {@link #close} must only be called once no thread uses it; afterwards
 * every operation on the keys ({@link #insert}, {@link #remove}, {@link #contains}, {@link #get},
 * {@link #size}) and a second {@code close} throw {@link IllegalStateException}, while
 * {@link #reclamation()} and {@link #incarnationMismatches()} still answer (the reclamation
 * outlives the structure: the nodes it holds in limbo go back with its next passes, e.g.
 * {@link Reclamation#reclaimIdle()}).
 */
public interface LockFreeLongMap extends AutoCloseable {
    /** Adds {@code key} with {@code value} if absent; returns whether it was added. */
    boolean insert(long key, long value);

    /** Removes {@code key}; returns whether this call removed it. */
    boolean remove(long key);

    /** Whether {@code key} is present. */
    boolean contains(long key);

    /** The value of {@code key}, or {@code absent} if it is not present. */
    long get(long key, long absent);

    /** Number of keys, counted by a traversal (exact only when no update runs concurrently). */
    long size();

    /** The reclamation scheme the nodes go through. */
    Reclamation reclamation();

    /**
     * CASes that acted on a node of another incarnation than the one the operation validated:
     * always 0 unless reclamation is broken (see {@code HarrisMichaelCore}).
     */
    long incarnationMismatches();

    /**
     * Frees every node still in the structure and its head words; the nodes removed earlier stay
     * in the reclamation's limbo lists until its next passes ({@link Reclamation#reclaimIdle()}),
     * and the reclamation stays usable.
     *
     * @throws IllegalStateException if the structure is already closed
     */
    @Override
    void close();
}
