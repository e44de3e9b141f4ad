package dev.floe.bench.alloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded single-producer single-consumer ring of {@code long}s: the hand-off of the
 * {@code cross-thread} workload.
 *
 * <p>Protocol (the classic Lamport queue, as in JCTools' {@code SpscArrayQueue}): the producer
 * owns the producer index and the consumer owns the consumer index; each keeps its own cursor in
 * a local variable and publishes it with a release store ({@code so…}); the other side reads it
 * with an acquire load ({@code lv…}). Sequence {@code s} lives in cell {@code s & mask}.
 * <ul>
 *   <li>The producer may fill cell {@code s} once {@code s < consumerIndex + capacity}; it writes
 *       the cell with a plain store, then releases {@code producerIndex = s + 1} (StoreStore: the
 *       value, and everything written before it, is visible before the index).</li>
 *   <li>The consumer may read cell {@code s} once {@code s < producerIndex} (acquire: LoadLoad),
 *       then releases {@code consumerIndex = s + 1} (LoadStore/StoreStore: whatever it did with
 *       the value, such as freeing the block, happens before the producer can reuse the cell).</li>
 *   <li>When it stops, the producer releases {@code done} after its last index; a consumer that
 *       reads {@code done} and then the index has seen the final index.</li>
 * </ul>
 * The three shared words sit 128 bytes apart in one padded array, so the producer's and the
 * consumer's stores never share a cache line (nor an adjacent-line prefetch pair).
 */
final class SpscRing {

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int PAD = 16; // longs: 128 bytes
    private static final int PRODUCER = PAD;
    private static final int CONSUMER = 2 * PAD;
    private static final int DONE = 3 * PAD;

    private final long[] cells;
    private final int mask;
    private final long[] shared = new long[4 * PAD];

    /** @param capacity a power of two */
    SpscRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) throw new IllegalArgumentException("capacity must be a power of two");
        this.cells = new long[capacity];
        this.mask = capacity - 1;
    }

    int capacity() {
        return cells.length;
    }

    /** The cell that sequence {@code seq} occupies. */
    int cell(long seq) {
        return (int) seq & mask;
    }

    /** Producer: plain store of a value into a cell it has claimed. */
    void spCell(int cell, long value) {
        cells[cell] = value;
    }

    /** Consumer: plain load of a cell it has seen published (ordered by {@link #lvProducerIndex}). */
    long lpCell(int cell) {
        return cells[cell];
    }

    /** Producer publishes up to {@code index} (release: StoreStore before it). */
    void soProducerIndex(long index) {
        LONGS.setRelease(shared, PRODUCER, index);
    }

    /** Consumer reads how far the producer has published (acquire: LoadLoad after it). */
    long lvProducerIndex() {
        return (long) LONGS.getAcquire(shared, PRODUCER);
    }

    /** Consumer hands cells back up to {@code index} (release: its frees happen before). */
    void soConsumerIndex(long index) {
        LONGS.setRelease(shared, CONSUMER, index);
    }

    /** Producer reads how far the consumer has handed back (acquire). */
    long lvConsumerIndex() {
        return (long) LONGS.getAcquire(shared, CONSUMER);
    }

    /** Producer: no more values will come (release, after the last {@link #soProducerIndex}). */
    void soDone() {
        LONGS.setRelease(shared, DONE, 1L);
    }

    /** Consumer: whether the producer has stopped (acquire; read it before the final index). */
    boolean lvDone() {
        return (long) LONGS.getAcquire(shared, DONE) != 0;
    }
}
