package dev.floe.bench.alloc;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The hand-off ring delivers every value exactly once and in order, across threads. */
class SpscRingTest {

    @Test
    void valuesArriveOnceAndInOrder() throws Exception {
        SpscRing ring = new SpscRing(16);
        long n = 200_000;
        AtomicLong mismatches = new AtomicLong();
        Thread consumer = new Thread(() -> {
            long next = 0;
            while (next < n) {
                if (next < ring.lvProducerIndex()) {
                    if (ring.lpCell(ring.cell(next)) != next * 3) mismatches.incrementAndGet();
                    ring.soConsumerIndex(++next);
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        consumer.start();
        for (long p = 0; p < n; ) {
            if (p < ring.lvConsumerIndex() + ring.capacity()) {
                ring.spCell(ring.cell(p), p * 3);
                ring.soProducerIndex(++p);
            } else {
                Thread.onSpinWait();
            }
        }
        consumer.join();
        assertEquals(0, mismatches.get());
    }
}
