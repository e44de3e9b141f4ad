package dev.floe.manual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Findings of an API review of {@code dev.floe.manual}: each test is the smallest program that
 * showed a difference between what the documentation promises and what the code did.
 */
class ManualApiReviewTest {
    private FloeAllocator alloc;
    private ManualHeap heap;

    @BeforeEach
    void setUp() {
        alloc = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build();
        heap = new ManualHeap(alloc);
    }

    @AfterEach
    void tearDown() {
        if (!alloc.isClosed()) alloc.close();
    }

    /**
     * "Per-thread state is given back when threads end, for platform and virtual threads
     * alike" (docs/manual.md). Records of ended threads were dropped only by a drain (an abandon
     * that seals a batch, or {@code reclaim()}): a read-only workload on short-lived virtual
     * threads kept one record (and its ended {@code Thread}) per thread that ever defended, and
     * every new thread's join copied the whole array (quadratic). A join now drops the records of
     * ended threads as it copies.
     */
    @Test
    void recordsOfEndedThreadsAreDroppedWithoutAnyAbandon() throws Exception {
        Owner o = heap.create(8);
        try (Shield s = o.defend()) { s.setLong(0, 5); }
        int rounds = 20, perRound = 100;
        for (int r = 0; r < rounds; r++) {
            Thread[] ts = new Thread[perRound];
            for (int i = 0; i < perRound; i++) {
                ts[i] = Thread.ofVirtual().start(() -> {
                    try (Shield s = o.defend()) {
                        assertEquals(5L, s.getLong(0));
                    }
                });
            }
            for (Thread t : ts) t.join();
        }
        assertTrue(heap.participants() <= 2 * perRound + 1,
                "records of " + rounds * perRound + " ended threads: " + heap.participants() + " still registered");
    }

    /**
     * A thread that ends with a shield open (misuse the documentation allows: "an unclosed shield
     * keeps its object alive until its thread ends") must not keep the object alive past that,
     * even when the only later drains come after other threads joined.
     */
    @Test
    void anObjectShieldedByAnEndedThreadIsFreedOnceItsRecordIsDropped() throws Exception {
        Owner o = heap.create(8);
        Thread t = Thread.ofVirtual().start(() -> o.defend()); // never closed
        t.join();
        o.abandon();
        Thread other = Thread.ofVirtual().start(() -> heap.create(8).defend().close()); // a join after t ended
        other.join();
        assertEquals(0, heap.reclaim(), "the ended thread's shield still holds its object");
    }
}
