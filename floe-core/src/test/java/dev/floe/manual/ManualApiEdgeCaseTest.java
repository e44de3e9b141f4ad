package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of the public API of {@code dev.floe.manual} that {@link OwnerShieldTest} and
 * {@link RefCountedTest} do not cover: the allocator closing under an open shield, null
 * arguments of the bulk copies, tuning values too large to allocate, layouts smaller than their
 * alignment, and the memory a heap gives back; and the heap's life around its threads and its
 * allocator: records of ended threads are dropped even when nothing is abandoned, an ended
 * thread's open shield stops protecting, and after the allocator's close every operation that
 * would hand it an object or take a shield fails alike and changes nothing.
 */
class ManualApiEdgeCaseTest {
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
     * Abandoned objects wait in retire batches and for their epochs, so under a budget a heap
     * whose objects were all abandoned refused every create (the budget still counted them) until
     * a batch filled and enough epochs passed, which a single thread that only creates never
     * brings about. A create out of budget now reclaims first and tries once more; objects that
     * are still shielded keep their memory, and then the create fails.
     */
    @Test
    void aCreateOutOfBudgetFirstReclaimsWhatWasAbandoned() {
        try (FloeAllocator small = FloeAllocator.builder().regionSize(1L << 30).budget(4L << 20).jmx(false).build()) {
            ManualHeap h = new ManualHeap(small);
            java.util.List<Owner> owners = new java.util.ArrayList<>();
            assertThrows(dev.floe.memory.FloeOutOfMemoryException.class, () -> {
                while (true) owners.add(h.create(4096));
            });
            int filled = owners.size();
            assertTrue(filled > 100, "the budget held " + filled + " objects");
            Owner shielded = owners.getFirst();
            try (Shield s = shielded.defend()) {
                for (Owner o : owners) o.abandon();
                for (int i = 0; i < filled - 1; i++) h.create(4096); // everything abandoned but the shielded one
                assertThrows(dev.floe.memory.FloeOutOfMemoryException.class, () -> h.create(4096),
                        "the shielded object keeps its memory");
                assertEquals(0, s.getLong(0), "the shielded object was not freed");
            }
        }
    }

    /**
     * A thread that holds a shield (on a small object of its own) while it works holds the epoch
     * back, and was ejected only once the limbo held {@code ejectThreshold} objects (1,024): large
     * objects fill the budget long before that, so every create failed (after 15 of 1 MiB on a
     * 16 MiB budget). A create out of budget now ejects such threads before it tries again; the
     * shielded object stays readable, and the thread's next defend rejoins.
     */
    @Test
    void aThreadHoldingAShieldDoesNotMakeCreatesFailOnceTheBudgetIsFull() throws Exception {
        try (FloeAllocator small = FloeAllocator.builder().regionSize(1L << 30).budget(16L << 20).jmx(false).build()) {
            ManualHeap h = new ManualHeap(small);
            java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            long[] seen = new long[2];
            Thread holder = Thread.ofPlatform().start(() -> {
                Owner own = h.create(64);
                try (Shield s = own.defend()) {
                    s.setLong(0, 7);
                    holding.countDown();
                    done.await();
                    seen[0] = s.getLong(0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                try (Shield again = own.defend()) { // rejoins after its ejection
                    seen[1] = again.getLong(0);
                }
                own.abandon();
            });
            assertTrue(holding.await(10, java.util.concurrent.TimeUnit.SECONDS));
            try {
                for (int i = 0; i < 200; i++) h.create(1 << 20).abandon(); // 12 times the budget
            } finally {
                done.countDown();
                holder.join(10_000);
            }
            assertTrue(h.ejections() > 0, "the holder was ejected");
            assertEquals(7, seen[0], "the shielded object kept its memory");
            assertEquals(7, seen[1]);
        }
    }

    /**
     * The shield's view is a segment of its own confined arena, which the allocator's close
     * cannot reach: built after the region was unmapped, it read unmapped memory and the JVM
     * died (SIGSEGV). It must fail like every other access after the close.
     */
    @Test
    void aShieldLeftOpenAcrossTheAllocatorsCloseFailsInsteadOfReadingUnmappedMemory() {
        Owner o = heap.create(64);
        Shield s = o.defend();
        s.setLong(0, 42);
        alloc.close();
        assertThrows(IllegalStateException.class, () -> s.getLong(0));
        assertThrows(IllegalStateException.class, () -> s.setLong(0, 1));
        assertThrows(IllegalStateException.class, s::segment);
        assertThrows(IllegalStateException.class, () -> heap.create(8));
        assertThrows(IllegalStateException.class, () -> s.tryDefend(o), "answered true and defended after the close");
        assertThrows(IllegalStateException.class, () -> s.defend(o));
        s.close(); // the slot goes back: no region access
    }

    /**
     * A view kept across the allocator's close (misuse) never reaches unmapped memory: the
     * region stays mapped for it, reading zeros, until the shield lets go of the view, which
     * then dies. Before {@code Region.scopedView}, the read after the close killed the JVM.
     */
    @Test
    void aViewKeptAcrossTheAllocatorsCloseReadsZerosUntilTheShieldCloses() {
        Owner o = heap.create(64);
        Shield s = o.defend();
        s.setLong(8, 42);
        java.lang.foreign.MemorySegment view = s.segment();
        alloc.close();
        assertEquals(0L, view.get(ValueLayout.JAVA_LONG, 8), "zeros, not a fault");
        s.close();
        assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_LONG, 8));
    }

    @Test
    void aViewTakenBeforeTheAllocatorClosedIsNotHandedOutAgainAfterIt() {
        Owner o = heap.create(64);
        try (Shield s = o.defend()) {
            s.segment(); // cached by the shield
            alloc.close();
            assertThrows(IllegalStateException.class, s::segment);
        }
    }

    @Test
    void bulkCopiesNameTheirNullArgument() {
        Owner o = heap.create(16);
        try (Shield s = o.defend()) {
            NullPointerException fromArray = assertThrows(NullPointerException.class,
                    () -> s.copyFrom((byte[]) null, 0, 0, 8));
            assertEquals("src", fromArray.getMessage());
            NullPointerException toArray = assertThrows(NullPointerException.class, () -> s.copyTo(0, null, 0, 8));
            assertEquals("dst", toArray.getMessage());
            NullPointerException fromShield = assertThrows(NullPointerException.class,
                    () -> s.copyFrom((Shield) null, 0, 0, 8));
            assertEquals("src", fromShield.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> s.copyFrom(new byte[8], 0, 0, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> s.copyTo(12, new byte[8], 0, 8));
        }
    }

    @Test
    void aBatchTooLargeToAllocateIsRefusedWithAClearException() {
        assertThrows(IllegalArgumentException.class,
                () -> new ManualHeap(alloc, new ManualHeap.Config(Integer.MAX_VALUE, 1)));
        assertThrows(IllegalArgumentException.class,
                () -> new ManualHeap.Config(ManualHeap.Config.MAX_BATCH + 1, 1));
        new ManualHeap(alloc, new ManualHeap.Config(ManualHeap.Config.MAX_BATCH, Long.MAX_VALUE));
        assertThrows(NullPointerException.class, () -> new ManualHeap(alloc, null));
        assertThrows(NullPointerException.class, () -> new ManualHeap(null));
    }

    @Test
    void aLayoutSmallerThanItsAlignmentGetsAnAlignedObject() {
        MemoryLayout intAt8 = ValueLayout.JAVA_INT.withByteAlignment(8); // 4 bytes, alignment 8
        VarHandle value = intAt8.varHandle();
        Owner[] owners = new Owner[64];
        for (int i = 0; i < owners.length; i++) {
            owners[i] = heap.create(intAt8);
            try (Shield s = owners[i].defend()) {
                assertEquals(4, s.byteSize());
                assertEquals(0, s.segment().address() % 8, "object " + i);
                value.set(s.segment(), 0L, i); // the var handle checks the alignment
                assertEquals(i, s.getInt(0));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> heap.create(MemoryLayout.structLayout()), "size 0");
        assertThrows(IllegalArgumentException.class, () -> heap.create(ValueLayout.JAVA_LONG.withByteAlignment(16)));
    }

    @Test
    void aShieldRefusingAnOwnerOfAnotherHeapKeepsDefendingItsObject() {
        Owner mine = heap.create(8);
        Owner foreign = new ManualHeap(alloc).create(8);
        try (Shield s = mine.defend()) {
            s.setLong(0, 7);
            assertThrows(IllegalArgumentException.class, () -> s.defend(foreign));
            assertThrows(IllegalArgumentException.class, () -> s.tryDefend(foreign));
            assertThrows(NullPointerException.class, () -> s.defend(null));
            assertTrue(s.isDefending());
            assertEquals(7, s.getLong(0));
        }
    }

    @Test
    void reclaimGivesEveryUnshieldedObjectBackToTheAllocator() {
        long baseline = alloc.stats().liveBytes();
        Owner kept = heap.create(100);
        for (int i = 0; i < 500; i++) heap.create(100 + i % 200).abandon();
        Owner shielded = heap.create(4096);
        Shield s = shielded.defend();
        shielded.abandon();
        assertEquals("Owner[empty]", shielded.toString());
        assertEquals(1, heap.reclaim(), "only the shielded object waits");
        assertEquals(500, heap.freedCount());
        s.close();
        assertEquals(0, heap.reclaim());
        assertEquals(501, heap.freedCount());
        assertEquals(baseline + alloc.usableSize(offsetOfOnlyLiveBlock(kept)), alloc.stats().liveBytes(),
                "only the object still owned is allocated");
        kept.abandon();
        assertEquals(0, heap.reclaim());
        assertEquals(baseline, alloc.stats().liveBytes());
    }

    @Test
    void releasedReferencesReportTheirState() {
        RefCounted a = RefCounted.adopt(heap.create(8));
        RefCounted b = a.retain();
        assertEquals("RefCounted[count=2]", a.toString());
        a.release();
        assertEquals("RefCounted[released]", a.toString());
        assertEquals(1, b.count());
        b.release();
        assertEquals(0, b.count());
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.freedCount());
    }

    /** The block of a live owner, found through a shield's view (the owner word is private). */
    private long offsetOfOnlyLiveBlock(Owner o) {
        try (Shield s = o.defend()) {
            return s.segment().address() - alloc.region().slice(0, 1).address();
        }
    }

    /**
     * "Per-thread state is given back when threads end, for platform and virtual threads
     * alike" (docs/manual.md). Records of ended threads were dropped only by a drain (an abandon
     * that seals a batch, or {@code reclaim()}): a read-only workload on short-lived virtual
     * threads kept one record (and its ended {@code Thread}) per thread that ever defended, and
     * every new thread's join copied the whole array (quadratic). Now the join that finds the
     * record table full drops the records of ended threads ({@link ParticipantRegistry}).
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
