package dev.floe.bench.alloc;

import dev.floe.bench.harness.StopSignal;
import dev.floe.bench.harness.TimedTask;

import java.util.List;

/**
 * One producer/consumer pair of the {@code cross-thread} workload: the producer allocates blocks
 * and hands them through an {@link SpscRing} to the consumer, which frees them. An operation is
 * a block freed by the consumer; the producer's count is not added, so ops/s is blocks per
 * second through the pair.
 *
 * <p>Slots: a block in ring cell {@code c} uses slot {@code slotBase + c}. The producer fills cell
 * {@code c} only after the consumer has released it, and the consumer releases a cell only after
 * freeing its block, so a slot is never reused while its block is live (the ring's release/acquire
 * pair carries the happens-before from the free to the reuse).
 *
 * <p>Waiting: an empty or full ring spins briefly ({@link Thread#onSpinWait()}) and then yields,
 * so that more threads than cores (two pairs on two cores) still make progress.
 */
final class CrossThreadPair {

    private static final int SPINS_BEFORE_YIELD = 64;

    private CrossThreadPair() {}

    /** The producer and the consumer of one pair. */
    static List<TimedTask> tasks(OffHeapAllocator allocator, int slotBase, int capacity, int blockSize) {
        SpscRing ring = new SpscRing(capacity);
        return List.of(new Producer(allocator, ring, slotBase, blockSize), new Consumer(allocator, ring));
    }

    private static int idle(int spins) {
        if (spins < SPINS_BEFORE_YIELD) Thread.onSpinWait();
        else Thread.yield();
        return spins + 1;
    }

    /** Allocates, touches and publishes blocks until stopped. */
    private static final class Producer implements TimedTask {
        private final OffHeapAllocator allocator;
        private final SpscRing ring;
        private final int slotBase;
        private final int blockSize;

        Producer(OffHeapAllocator allocator, SpscRing ring, int slotBase, int blockSize) {
            this.allocator = allocator;
            this.ring = ring;
            this.slotBase = slotBase;
            this.blockSize = blockSize;
        }

        @Override
        public void setUp() {
            // the ring starts empty
        }

        @Override
        public long run(StopSignal stop) {
            OffHeapAllocator a = allocator;
            SpscRing r = ring;
            long next = 0;
            long limit = r.capacity(); // cells are free up to consumerIndex + capacity
            int spins = 0;
            try {
                while (!stop.isRaised()) {
                    if (next >= limit) {
                        limit = r.lvConsumerIndex() + r.capacity();
                        if (next >= limit) {
                            spins = idle(spins);
                            continue;
                        }
                    }
                    int cell = r.cell(next);
                    long block = a.alloc(slotBase + cell, blockSize);
                    a.write(block, next);
                    r.spCell(cell, block);
                    r.soProducerIndex(++next); // StoreStore: block contents and cell before the index
                    spins = 0;
                }
            } finally {
                r.soDone(); // also on failure, or the consumer would drain forever
            }
            return 0;
        }

        @Override
        public void tearDown() {
            // the consumer frees everything that was published
        }
    }

    /** Frees published blocks until stopped, then drains what is left, uncounted. */
    private static final class Consumer implements TimedTask {
        private final OffHeapAllocator allocator;
        private final SpscRing ring;

        Consumer(OffHeapAllocator allocator, SpscRing ring) {
            this.allocator = allocator;
            this.ring = ring;
        }

        @Override
        public void setUp() {
            // nothing to prepare
        }

        @Override
        public long run(StopSignal stop) {
            OffHeapAllocator a = allocator;
            SpscRing r = ring;
            long next = 0;
            long available = 0;
            long ops = 0;
            int spins = 0;
            while (!stop.isRaised()) {
                if (next >= available) {
                    available = r.lvProducerIndex(); // LoadLoad: cells up to it are readable
                    if (next >= available) {
                        spins = idle(spins);
                        continue;
                    }
                }
                a.free(r.lpCell(r.cell(next)));
                r.soConsumerIndex(++next); // the free happens before the producer reuses the slot
                ops++;
                spins = 0;
            }
            while (true) {
                boolean done = r.lvDone(); // read before the index: if set, the index is final
                available = r.lvProducerIndex();
                while (next < available) {
                    a.free(r.lpCell(r.cell(next)));
                    r.soConsumerIndex(++next);
                }
                if (done) return ops;
                spins = idle(spins);
            }
        }

        @Override
        public void tearDown() {
            // drained in run
        }
    }
}
