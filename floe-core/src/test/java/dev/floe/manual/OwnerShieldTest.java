package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The owner / shield programming model and its run-time checks (misuse fails cleanly). */
class OwnerShieldTest {
    private FloeAllocator alloc;
    private ManualHeap heap;

    @BeforeEach
    void setUp() {
        alloc = FloeAllocator.builder().regionSize(1L << 30).build();
        heap = new ManualHeap(alloc);
    }

    @AfterEach
    void tearDown() {
        alloc.close();
    }

    @Test
    void createdObjectIsZeroedAndReadableThroughAShield() {
        Owner o = heap.create(100);
        try (Shield s = o.defend()) {
            assertEquals(100, s.byteSize());
            for (int i = 0; i < 100; i++) assertEquals(0, s.getByte(i));
            s.setLong(0, 42);
            s.setInt(96, 7);
            assertEquals(42, s.getLong(0));
            assertEquals(7, s.getInt(96));
        }
        try (Shield s = o.defend()) {
            assertEquals(42, s.getLong(0));
        }
    }

    @Test
    void createWithAFillValueSetsEveryByte() {
        Owner used = heap.create(40, (byte) 0x5A);
        used.abandon();
        heap.reclaim(); // its block is free again; a new object must not show its bytes
        Owner o = heap.create(40, (byte) 7);
        try (Shield s = o.defend()) {
            for (int i = 0; i < 40; i++) assertEquals(7, s.getByte(i));
        }
        try (Shield s = heap.create(40).defend()) {
            for (int i = 0; i < 40; i++) assertEquals(0, s.getByte(i));
        }
    }

    @Test
    void accessorsAreBoundedToTheObject() {
        Owner o = heap.create(16);
        try (Shield s = o.defend()) {
            assertThrows(IndexOutOfBoundsException.class, () -> s.getLong(9));
            assertThrows(IndexOutOfBoundsException.class, () -> s.setByte(16, (byte) 1));
            assertThrows(IndexOutOfBoundsException.class, () -> s.getInt(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> s.getByte(16));
            assertThrows(IndexOutOfBoundsException.class, () -> s.getInt(13));
            assertThrows(IndexOutOfBoundsException.class, () -> s.getLong(Long.MAX_VALUE - 3)); // offset + width overflows
            assertEquals(0, s.getLong(8)); // the last fields inside are fine
            assertEquals(0, s.getInt(12));
            assertEquals(0, s.getByte(15));
            assertThrows(IndexOutOfBoundsException.class, () -> s.segment().get(ValueLayout.JAVA_LONG, 16));
        }
    }

    @Test
    void layoutObjectsWorkWithTheLayoutsVarHandles() {
        MemoryLayout point = MemoryLayout.structLayout(
                ValueLayout.JAVA_INT.withName("x"), ValueLayout.JAVA_INT.withName("y"), ValueLayout.JAVA_LONG.withName("id"));
        VarHandle y = point.varHandle(MemoryLayout.PathElement.groupElement("y"));
        VarHandle id = point.varHandle(MemoryLayout.PathElement.groupElement("id"));
        Owner o = heap.create(point);
        try (Shield s = o.defend()) {
            assertEquals(point.byteSize(), s.byteSize());
            y.set(s.segment(), 0L, 5);
            id.set(s.segment(), 0L, 99L);
            assertEquals(5, s.getInt(4));
            assertEquals(99L, (long) id.get(s.segment(), 0L));
        }
        assertThrows(IllegalArgumentException.class, () -> heap.create(MemoryLayout.sequenceLayout(2, ValueLayout.JAVA_LONG).withByteAlignment(16)));
    }

    @Test
    void badSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> heap.create(0));
        assertThrows(IllegalArgumentException.class, () -> heap.create(-8));
        assertThrows(IllegalArgumentException.class, () -> heap.create(Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> heap.create(heap.maxObjectBytes() + 1));
        // a 1 GiB region needs 30 offset bits, leaving 33 for the length; the allocator's own limit is lower
        assertEquals(Math.min(alloc.maxAllocation(), (1L << 33) - 1), heap.maxObjectBytes());
        assertThrows(NullPointerException.class, () -> heap.create((MemoryLayout) null));
    }

    @Test
    void defendOnAnAbandonedOwnerFails() {
        Owner o = heap.create(8);
        o.abandon();
        assertTrue(o.isEmpty());
        assertThrows(IllegalStateException.class, o::defend);
        try (Shield s = heap.newShield()) {
            assertFalse(s.tryDefend(o));
            assertFalse(s.isDefending());
            assertThrows(IllegalStateException.class, () -> s.defend(o));
            assertThrows(IllegalStateException.class, () -> s.getLong(0)); // defends nothing
        }
    }

    @Test
    void doubleAbandonFails() {
        Owner o = heap.create(8);
        o.abandon();
        assertThrows(IllegalStateException.class, o::abandon);
        assertEquals(1, heap.waiting() + heap.freedCount());
    }

    @Test
    void moveTransfersOwnershipAndAbandonsTheReceiversObject() {
        Owner a = heap.create(8);
        Owner b = heap.create(8);
        try (Shield s = a.defend()) { s.setLong(0, 1); }
        try (Shield s = b.defend()) { s.setLong(0, 2); }
        a.move(b);
        assertTrue(b.isEmpty());
        assertThrows(IllegalStateException.class, b::defend);
        try (Shield s = a.defend()) { assertEquals(2, s.getLong(0)); }
        assertEquals(0, heap.reclaim()); // a's first object was abandoned by the move and is free now
        assertEquals(1, heap.freedCount());
        Owner empty = heap.newOwner();
        empty.move(a);
        try (Shield s = empty.defend()) { assertEquals(2, s.getLong(0)); }
        assertEquals(1, heap.freedCount()); // moving into an empty owner abandons nothing
    }

    /** A container that embeds its owner, as the paper's cache entry holds its {@code Owner<T>} struct. */
    static final class Entry extends Owner {
        final int key;

        Entry(ManualHeap heap, int key) {
            super(heap);
            this.key = key;
        }
    }

    @Test
    void aClassCanEmbedItsOwnerAndCreateIntoIt() {
        Entry e = new Entry(heap, 7);
        assertTrue(e.isEmpty());
        assertThrows(IllegalStateException.class, e::defend);
        heap.createInto(e, 24, (byte) 3);
        try (Shield s = e.defend()) {
            assertEquals(24, s.byteSize());
            for (int i = 0; i < 24; i++) assertEquals(3, s.getByte(i));
        }
        heap.createInto(e, 16, (byte) 4); // replaces the object: the first one is abandoned
        try (Shield s = e.defend()) {
            assertEquals(16, s.byteSize());
            assertEquals(4, s.getByte(15));
        }
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.freedCount());
        Owner plain = heap.newOwner();
        plain.move(e); // an embedded owner moves like any other
        assertTrue(e.isEmpty());
        try (Shield s = plain.defend()) { assertEquals(4, s.getByte(0)); }
        e.move(plain);
        e.abandon();
        assertThrows(IllegalStateException.class, e::abandon);
        assertEquals(0, heap.reclaim());
        assertEquals(2, heap.freedCount());
        assertEquals(7, e.key);
    }

    /** An embedding class that tries to copy its owner: with {@code clone} (it is Cloneable) and by serialization. */
    static final class CopyableEntry extends Owner implements Cloneable, java.io.Serializable {
        CopyableEntry(ManualHeap heap) {
            super(heap);
        }

        CopyableEntry copy() throws CloneNotSupportedException {
            return (CopyableEntry) clone();
        }
    }

    @Test
    void anEmbeddingClassCannotCopyItsOwner() throws Exception {
        CopyableEntry e = new CopyableEntry(heap);
        heap.createInto(e, 16, (byte) 5);
        // a copy would be a second owner: a shield through it after e's abandon would read freed memory
        assertThrows(CloneNotSupportedException.class, e::copy);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(e); // writes no owner word: Owner is not serializable
        }
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            assertThrows(java.io.InvalidClassException.class, in::readObject, "no constructor to rebuild an Owner with");
        }
        e.abandon();
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.freedCount());
    }

    @Test
    void refusedCreateIntoLeavesTheOwnerUnchanged() {
        Entry e = new Entry(heap, 1);
        heap.createInto(e, 8, (byte) 9);
        assertThrows(IllegalArgumentException.class, () -> heap.createInto(e, 0, (byte) 0));
        assertThrows(IllegalArgumentException.class, () -> heap.createInto(e, heap.maxObjectBytes() + 1, (byte) 0));
        ManualHeap other = new ManualHeap(alloc);
        assertThrows(IllegalArgumentException.class, () -> other.createInto(e, 8, (byte) 0));
        assertThrows(NullPointerException.class, () -> heap.createInto(null, 8, (byte) 0));
        assertThrows(NullPointerException.class, () -> new Entry(null, 0));
        try (Shield s = e.defend()) {
            assertEquals(8, s.byteSize());
            assertEquals(9, s.getByte(7));
        }
        assertEquals(0, heap.waiting(), "the refused calls abandoned nothing");
    }

    @Test
    void moveOntoItselfOrFromEmptyOrAcrossHeapsFails() {
        Owner a = heap.create(8);
        assertThrows(IllegalArgumentException.class, () -> a.move(a));
        assertThrows(IllegalStateException.class, () -> a.move(heap.newOwner()));
        assertThrows(NullPointerException.class, () -> a.move(null));
        ManualHeap other = new ManualHeap(alloc);
        assertThrows(IllegalArgumentException.class, () -> a.move(other.create(8)));
        try (Shield s = other.newShield()) {
            assertThrows(IllegalArgumentException.class, () -> s.defend(a));
        }
        try (Shield s = a.defend()) { // a still holds its object after the refused moves
            assertEquals(8, s.byteSize());
        }
    }

    @Test
    void useAfterCloseFailsForTheShieldAndItsView() {
        Owner o = heap.create(32);
        Shield s = o.defend();
        MemorySegment view = s.segment();
        view.set(ValueLayout.JAVA_LONG, 0, 5L);
        s.close();
        s.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> s.getLong(0));
        assertThrows(IllegalStateException.class, () -> s.setLong(0, 1));
        assertThrows(IllegalStateException.class, s::segment);
        assertThrows(IllegalStateException.class, () -> s.defend(o));
        assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_LONG, 0)); // arena closed
    }

    @Test
    void repointingAShieldKillsThePreviousView() {
        Owner a = heap.create(8);
        Owner b = heap.create(8);
        try (Shield s = heap.newShield()) {
            s.defend(a);
            MemorySegment viewA = s.segment();
            s.defend(b);
            assertThrows(IllegalStateException.class, () -> viewA.get(ValueLayout.JAVA_LONG, 0));
            s.segment().set(ValueLayout.JAVA_LONG, 0, 9L);
            assertEquals(9, s.getLong(0));
        }
    }

    @Test
    void aShieldAndItsViewRefuseOtherThreads() throws Exception {
        Owner o = heap.create(8);
        try (Shield s = o.defend()) {
            MemorySegment view = s.segment();
            AtomicReference<Throwable> shieldUse = new AtomicReference<>();
            AtomicReference<Throwable> viewUse = new AtomicReference<>();
            AtomicReference<Throwable> closeUse = new AtomicReference<>();
            Thread t = Thread.ofPlatform().start(() -> {
                shieldUse.set(catching(() -> s.getLong(0)));
                viewUse.set(catching(() -> view.get(ValueLayout.JAVA_LONG, 0)));
                closeUse.set(catching(s::close));
            });
            t.join();
            assertInstanceOf(WrongThreadException.class, shieldUse.get());
            assertInstanceOf(WrongThreadException.class, viewUse.get());
            assertInstanceOf(WrongThreadException.class, closeUse.get());
            assertEquals(0, s.getLong(0)); // still open for its own thread
        }
    }

    @Test
    void copiesInAndOut() {
        Owner a = heap.create(64);
        Owner b = heap.create(64);
        byte[] src = new byte[64];
        for (int i = 0; i < 64; i++) src[i] = (byte) i;
        try (Shield sa = a.defend(); Shield sb = b.defend()) {
            sa.copyFrom(src, 0, 0, 64);
            sb.copyFrom(sa, 8, 0, 56);
            byte[] out = new byte[56];
            sb.copyTo(0, out, 0, 56);
            byte[] expected = new byte[56];
            System.arraycopy(src, 8, expected, 0, 56);
            assertArrayEquals(expected, out);
            sa.fill((byte) 3);
            assertEquals(3, sa.getByte(63));
        }
    }

    @Test
    void worksOnVirtualThreads() throws Exception {
        Owner o = heap.create(8);
        try (Shield s = o.defend()) { s.setLong(0, 77); }
        try (var exec = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            CompletableFuture<Long>[] fs = new CompletableFuture[200];
            for (int i = 0; i < fs.length; i++) {
                fs[i] = CompletableFuture.supplyAsync(() -> {
                    try (Shield s = o.defend()) {
                        return s.getLong(0);
                    }
                }, exec);
            }
            for (CompletableFuture<Long> f : fs) assertEquals(77L, f.get());
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
        o.abandon();
        assertEquals(0, heap.reclaim(), "finished (idle) threads do not hold the epoch back, ended or not");
        long deadline = System.nanoTime() + 10_000_000_000L; // a task's thread ends just after its future completes
        while (heap.participants() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10);
            heap.reclaim();
        }
        assertTrue(heap.participants() <= 1, "records of ended virtual threads are dropped: " + heap.participants());
    }

    private static Throwable catching(Runnable r) {
        try {
            r.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
