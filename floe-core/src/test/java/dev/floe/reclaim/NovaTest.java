package dev.floe.reclaim;

import static dev.floe.reclaim.NovaTestSupport.owner;
import static dev.floe.reclaim.NovaTestSupport.stamp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Single-threaded behaviour of {@link Nova}: the SOMAR API (Nova paper, section 2) — allocate,
 * read, write, delete, the privatized forms, length — with both the throwing and the
 * sentinel-returning forms, the bounds of the views handed to user code (ARCHITECTURE.md
 * invariant 6), and version changes on reuse (section 3.2: every access through a pointer whose
 * slice was deleted and reallocated fails).
 */
class NovaTest {
    private static final Object FAIL = new Object();

    private FloeAllocator alloc;
    private Nova nova;

    @BeforeEach
    void open() {
        alloc = NovaTestSupport.open(RegionMode.AUTO);
        nova = new Nova(alloc, 1); // batch of one: every delete is reclaimed at once
    }

    @AfterEach
    void close() {
        alloc.close();
    }

    private long allocateStamped(long length) {
        long p = nova.allocate(length);
        nova.writePrivate(p, (s, x) -> {
            stamp(s, p);
            return null;
        }, null);
        return p;
    }

    private static SliceReader<Long> first() {
        return s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    @Test
    void allocatedSliceHasItsLengthAndRoundTripsWritesAndReads() {
        long p = nova.allocate(100);
        assertEquals(100, nova.length(p));
        assertNotEquals(SafePointer.NULL, p);
        assertFalse(SafePointer.isDeleted(p));
        assertTrue(SafePointer.version(p) > 0, "versions start above 0");

        int written = nova.writePrivate(p, (s, v) -> {
            s.fill((byte) 0);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            return 7;
        }, 0x1234_5678_9ABCL);
        assertEquals(7, written, "writePrivate returns the writer's result");
        assertEquals(0x1234_5678_9ABCL, nova.read(p, first()));

        String r = nova.write(p, (s, v) -> {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 92, v);
            return "done";
        }, -5L);
        assertEquals("done", r, "write returns the writer's result");
        assertEquals(-5L, (long) nova.read(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 92)));
        assertEquals(-5L, nova.readOr(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 92), 0L));
        assertEquals("ok", nova.writeOr(p, (s, v) -> "ok", null, "failed"));
        assertTrue(nova.delete(p));
    }

    @Test
    void distinctLiveSlicesDoNotOverlap() {
        List<Long> ptrs = new ArrayList<>();
        for (int i = 0; i < 2000; i++) ptrs.add(allocateStamped(8 + (i * 37) % 300));
        for (long p : ptrs) assertEquals(p, nova.read(p, NovaTestSupport::owner), "slice " + p + " was overwritten");
        for (long p : ptrs) assertTrue(nova.delete(p));
        NovaTestSupport.assertAllReclaimed(nova);
    }

    @Test
    void deletedSliceFailsEveryOperation() {
        long p = allocateStamped(64);
        assertTrue(nova.delete(p), "the first delete succeeds");
        assertFalse(nova.delete(p), "a second delete fails");
        assertDead(p);
        assertDead(SafePointer.markDeleted(p));
    }

    @Test
    void deleteIsRefusedThroughAPointerCarryingTheDeletedMark() {
        long p = allocateStamped(64);
        long marked = SafePointer.markDeleted(p);
        assertTrue(SafePointer.isDeleted(marked));
        assertEquals(SafePointer.headerOffset(p), SafePointer.headerOffset(marked));
        assertEquals(SafePointer.version(p), SafePointer.version(marked));
        assertFalse(nova.delete(marked), "a pointer marked deleted names no live slice");
        assertDead(marked);
        assertEquals(p, nova.read(p, NovaTestSupport::owner), "the slice itself is still live");
        assertTrue(nova.delete(p));
    }

    @Test
    void deletePrivateRetiresTheSlice() {
        long p = allocateStamped(40);
        nova.deletePrivate(p);
        assertFalse(nova.delete(p), "delete after deletePrivate");
        assertDead(p);
        NovaTestSupport.assertAllReclaimed(nova);
    }

    @Test
    void deletedSlicesAreReclaimedAfterReclaimNow() {
        Nova batched = new Nova(alloc, 1000);
        long[] ptrs = new long[500];
        for (int i = 0; i < ptrs.length; i++) ptrs[i] = batched.allocate(24);
        long live = NovaTestSupport.liveBytes(alloc);
        assertEquals(500 * 32, live, "500 slices of 24+8 bytes");
        for (long p : ptrs) assertTrue(batched.delete(p));
        assertEquals(500, batched.waitingSlices(), "a batch of 1000 is not full yet: all wait");
        assertEquals(live, NovaTestSupport.liveBytes(alloc), "nothing freed before the batch is drained");
        long era = batched.era();
        batched.reclaimNow();
        assertTrue(batched.era() > era, "retiring advances the era");
        NovaTestSupport.assertAllReclaimed(batched);
    }

    /** Every operation through {@code p} fails: throwing forms throw, the others return the sentinel. */
    private void assertDead(long p) {
        assertThrows(DeletedSliceException.class, () -> nova.read(p, s -> 1));
        assertThrows(DeletedSliceException.class, () -> nova.write(p, (s, x) -> 1, null));
        assertThrows(DeletedSliceException.class, () -> nova.writePrivate(p, (s, x) -> 1, null));
        assertThrows(DeletedSliceException.class, () -> nova.deletePrivate(p));
        assertSame(FAIL, nova.readOr(p, s -> "read", FAIL));
        assertSame(FAIL, nova.writeOr(p, (s, x) -> "written", null, FAIL));
        assertEquals(-1, nova.length(p));
        assertFalse(nova.delete(p));
        // the failed calls never ran user code: a reader/writer that fails the test if called
        nova.readOr(p, s -> fail("reader ran on a dead slice"), null);
        nova.writeOr(p, (s, x) -> fail("writer ran on a dead slice"), null, null);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 7, 8, 9, 56, 100, 1000, 4088, 5000, Nova.MAX_SLICE})
    void viewsAreBoundedToExactlyTheSliceLength(long length) {
        long p = nova.allocate(length);
        assertEquals(length, nova.length(p));
        long seen = nova.writePrivate(p, (s, x) -> {
            s.fill((byte) 0x5A);
            return s.byteSize();
        }, null);
        assertEquals(length, seen, "writePrivate view size");
        assertEquals(length, (long) nova.write(p, (s, x) -> s.byteSize(), null), "write view size");
        assertEquals(length, (long) nova.read(p, MemorySegment::byteSize), "read view size");

        // one byte past the end is out of bounds in every view; the exception reaches the caller
        assertThrows(IndexOutOfBoundsException.class, () -> nova.read(p, s -> s.get(ValueLayout.JAVA_BYTE, length)));
        assertThrows(IndexOutOfBoundsException.class,
                () -> nova.write(p, (s, x) -> s.get(ValueLayout.JAVA_BYTE, length), null));
        assertThrows(IndexOutOfBoundsException.class,
                () -> nova.writePrivate(p, (s, x) -> s.get(ValueLayout.JAVA_BYTE, length), null));
        assertThrows(IndexOutOfBoundsException.class, () -> nova.read(p, s -> s.get(ValueLayout.JAVA_BYTE, -1)));
        assertThrows(IndexOutOfBoundsException.class,
                () -> nova.write(p, (s, x) -> s.asSlice(0, length + 1), null));

        if (length > 0) {
            // the last byte is reachable and the slice is all ours
            nova.write(p, (s, x) -> {
                s.set(ValueLayout.JAVA_BYTE, length - 1, (byte) 0x11);
                return null;
            }, null);
            byte[] bytes = nova.read(p, s -> s.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(length, bytes.length);
            assertEquals(0x11, bytes[(int) length - 1]);
            for (int i = 0; i < length - 1; i++) assertEquals(0x5A, bytes[i], "byte " + i);
        }
        // the header in front of the slice survived all of this
        assertEquals(length, nova.length(p));
        assertTrue(nova.delete(p));
    }

    @Test
    void readerViewsAreReadOnly() {
        long p = allocateStamped(32);
        assertTrue((boolean) nova.read(p, MemorySegment::isReadOnly), "the reader's view is read-only");
        assertFalse((boolean) nova.write(p, (s, x) -> s.isReadOnly(), null), "the writer's view is writable");
        assertFalse((boolean) nova.writePrivate(p, (s, x) -> s.isReadOnly(), null), "the private writer's view is writable");
        // JDK 25 reports a write to a read-only segment as IllegalArgumentException
        assertThrows(IllegalArgumentException.class, () -> nova.read(p, s -> {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
            return null;
        }));
        assertThrows(IllegalArgumentException.class, () -> nova.read(p, s -> {
            s.fill((byte) 0);
            return null;
        }));
        assertEquals(p, nova.read(p, NovaTestSupport::owner), "the refused writes changed nothing");
        assertTrue(nova.delete(p));
    }

    @Test
    void readerExceptionOnALiveSlicePropagates() {
        long p = allocateStamped(16);
        IllegalStateException boom = new IllegalStateException("reader failed");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> nova.readOr(p, s -> {
            throw boom;
        }, FAIL));
        assertSame(boom, thrown, "the reader's own exception, unchanged");
        assertSame(boom, assertThrows(IllegalStateException.class, () -> nova.read(p, s -> {
            throw boom;
        })));
        // writers' exceptions propagate too, and the hazard slot is released (the slice reclaims)
        ArithmeticException wboom = new ArithmeticException("writer failed");
        assertSame(wboom, assertThrows(ArithmeticException.class, () -> nova.write(p, (s, x) -> {
            throw wboom;
        }, null)));
        assertTrue(nova.delete(p));
        NovaTestSupport.assertAllReclaimed(nova);
    }

    @Test
    void readerExceptionOnASliceDeletedMeanwhileIsAFailure() {
        long p = allocateStamped(16);
        Object r = nova.readOr(p, s -> {
            assertTrue(nova.delete(p)); // deleted while the read runs (batch 1: freed at once)
            throw new IllegalStateException("the reader saw garbage");
        }, FAIL);
        assertSame(FAIL, r, "the read failed; the reader's exception was discarded");

        long q = allocateStamped(16);
        DeletedSliceException e = assertThrows(DeletedSliceException.class, () -> nova.read(q, s -> {
            assertTrue(nova.delete(q));
            throw new ArithmeticException("the reader saw garbage");
        }));
        assertTrue(e.getMessage().contains("deleted"), e.getMessage());
    }

    @Test
    void readerExceptionOnASliceReusedMeanwhileIsAFailure() {
        long p = allocateStamped(16);
        AtomicReference<Long> reused = new AtomicReference<>();
        Object r = nova.readOr(p, s -> {
            assertTrue(nova.delete(p));
            long q = reuse(p, 16);
            reused.set(q);
            throw new IllegalStateException("the reader saw another incarnation");
        }, FAIL);
        assertSame(FAIL, r);
        // and a reader that returns normally after the reuse fails too
        long q = reused.get();
        Object r2 = nova.readOr(q, s -> {
            assertTrue(nova.delete(q));
            return reuse(q, 16);
        }, FAIL);
        assertSame(FAIL, r2);
    }

    @Test
    void lengthsZeroAndMaxSliceWork() {
        long zero = nova.allocate(0);
        assertEquals(0, nova.length(zero));
        assertEquals(8, NovaTestSupport.blockSize(alloc, zero), "an empty slice is just its header");
        assertEquals(0L, (long) nova.read(zero, MemorySegment::byteSize));
        assertEquals(0L, (long) nova.write(zero, (s, x) -> s.byteSize(), null));
        assertTrue(nova.delete(zero));
        assertDead(zero);

        long max = nova.allocate(Nova.MAX_SLICE);
        assertEquals(Nova.MAX_SLICE, nova.length(max));
        assertEquals(Nova.MAX_SLICE + 8, NovaTestSupport.blockSize(alloc, max), "the largest size-class block");
        nova.writePrivate(max, (s, x) -> {
            stamp(s, max);
            return null;
        }, null);
        assertEquals(max, nova.read(max, NovaTestSupport::owner));
        assertTrue(nova.delete(max));
        assertDead(max);
        NovaTestSupport.assertAllReclaimed(nova);
    }

    @Test
    void lengthOutsideZeroToMaxSliceIsIllegal() {
        for (long bad : new long[] {-1, -8, Long.MIN_VALUE, Nova.MAX_SLICE + 1, Nova.MAX_SLICE + 8,
                Nova.MAX_SLICE * 2, Long.MAX_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> nova.allocate(bad), "length " + bad);
        }
        assertEquals(0, NovaTestSupport.liveBytes(alloc), "refused allocations took nothing");
    }

    @Test
    void constructorRefusesBadBatchSizes() {
        assertThrows(IllegalArgumentException.class, () -> new Nova(alloc, 0));
        assertThrows(IllegalArgumentException.class, () -> new Nova(alloc, -1));
    }

    /** Deletes nothing; reallocates {@code length} bytes until {@code old}'s header offset comes back. */
    private long reuse(long old, long length) {
        List<Long> others = new ArrayList<>();
        try {
            for (int i = 0; i < 100_000; i++) {
                long q = allocateStamped(length);
                if (SafePointer.headerOffset(q) == SafePointer.headerOffset(old)) return q;
                others.add(q);
            }
            throw new AssertionError("the block of " + NovaTestSupport.describe(old) + " never came back");
        } finally {
            for (long q : others) nova.delete(q);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 16, 100, 1000, Nova.MAX_SLICE})
    void reusedBlockGetsANewVersionAndOldPointersFail(long length) {
        long old = allocateStamped(length);
        long copy = old; // a copy of the pointer held elsewhere
        assertTrue(nova.delete(old));
        nova.reclaimNow();
        long fresh = reuse(old, length);

        assertEquals(SafePointer.headerOffset(old), SafePointer.headerOffset(fresh), "same header");
        assertNotEquals(SafePointer.version(old), SafePointer.version(fresh), "a new version on reuse");
        assertTrue(SafePointer.version(fresh) > SafePointer.version(old), "the era only moves forward");

        // the stale pointer (and every copy of it) fails every operation
        for (long stale : new long[] {old, copy}) {
            assertThrows(DeletedSliceException.class, () -> nova.read(stale, s -> 1));
            assertSame(FAIL, nova.readOr(stale, s -> 1, FAIL));
            assertThrows(DeletedSliceException.class, () -> nova.write(stale, (s, x) -> {
                s.fill((byte) 0);
                return null;
            }, null));
            assertSame(FAIL, nova.writeOr(stale, (s, x) -> {
                s.fill((byte) 0);
                return null;
            }, null, FAIL));
            assertThrows(DeletedSliceException.class, () -> nova.writePrivate(stale, (s, x) -> {
                s.fill((byte) 0);
                return null;
            }, null));
            assertThrows(DeletedSliceException.class, () -> nova.deletePrivate(stale));
            assertFalse(nova.delete(stale), "a stale delete must not delete the new incarnation");
            assertEquals(-1, nova.length(stale));
        }
        // the new incarnation is untouched and fully usable
        assertEquals(length, nova.length(fresh));
        if (length >= 8) assertEquals(fresh, nova.read(fresh, NovaTestSupport::owner));
        nova.write(fresh, (s, x) -> {
            stamp(s, fresh);
            return null;
        }, null);
        if (length >= 8) assertEquals(fresh, nova.read(fresh, NovaTestSupport::owner));
        assertTrue(nova.delete(fresh));
        NovaTestSupport.assertAllReclaimed(nova);
    }

    @Test
    void aBlockIsNotReusedBeforeItsBatchIsRetired() {
        Nova batched = new Nova(alloc, 64);
        long p = batched.allocate(16);
        long hdr = SafePointer.headerOffset(p);
        assertTrue(batched.delete(p));
        for (int i = 0; i < 200; i++) {
            long q = batched.allocate(16);
            assertNotEquals(hdr, SafePointer.headerOffset(q), "reallocated while still on a release list");
        }
    }

    @Test
    void readsAndWritesSeeEachOthersBytes() {
        long p = nova.allocate(256);
        byte[] data = new byte[256];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 7 + 3);
        nova.write(p, (s, d) -> {
            MemorySegment.copy(d, 0, s, ValueLayout.JAVA_BYTE, 0, d.length);
            return null;
        }, data);
        assertArrayEquals(data, nova.read(p, s -> s.toArray(ValueLayout.JAVA_BYTE)));
        assertTrue(nova.delete(p));
    }
}
