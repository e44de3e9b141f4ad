package dev.floe.manual;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A heap's life around its threads and its allocator: records of ended threads are dropped even
 * when nothing is abandoned, an ended thread's open shield stops protecting, and after the
 * allocator's close every operation that would hand it an object or take a shield fails alike
 * and changes nothing.
 */
class ManualHeapLifecycleTest {
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

    /**
     * After the allocator's close, an abandon was silently accepted except for the one that
     * sealed a retire batch, which threw from the drain's free (one in 64 by default): the same
     * call succeeded or failed by position. Now every operation that would hand an object to the
     * closed allocator, or take a shield on it, fails with {@link IllegalStateException} and
     * changes nothing.
     */
    @Test
    void afterTheAllocatorsCloseOwnerOperationsFailAlikeAndChangeNothing() {
        java.util.List<Owner> owners = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) owners.add(heap.create(64));
        Owner empty = heap.newOwner();
        RefCounted ref = RefCounted.adopt(heap.create(8));
        alloc.close();
        int refused = 0;
        for (Owner o : owners) {
            try {
                o.abandon();
            } catch (IllegalStateException e) {
                refused++;
            }
        }
        assertEquals(owners.size(), refused, "abandons after the close");
        for (Owner o : owners) assertTrue(!o.isEmpty(), "a refused abandon emptied its owner");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> empty.move(owners.get(0)));
        assertTrue(!owners.get(0).isEmpty() && empty.isEmpty(), "a refused move changed an owner");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> owners.get(1).defend());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, heap::newShield);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, heap::reclaim);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, ref::release);
        assertTrue(!ref.isReleased() && ref.count() == 1, "a refused release changed the reference");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> heap.create(8));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> heap.createInto(empty, 8, (byte) 0));
        assertTrue(empty.isEmpty());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> new ManualHeap(alloc),
                "a heap on a closed allocator (Nova's constructors refuse one too)");
    }
}
