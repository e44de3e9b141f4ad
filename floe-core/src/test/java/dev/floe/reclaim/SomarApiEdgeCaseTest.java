package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import dev.floe.memory.SizeClasses;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link Somar} API (Nova and the baselines) as a demanding user meets it, beyond
 * {@link NovaMisuseTest} and {@link NovaTest}: attached runs against stale pointers, what a
 * reader may throw, the stamp and protection entry points on their edge values, null lambdas,
 * constructors, the two forms of every operation, and virtual threads.
 */
class SomarApiEdgeCaseTest {
    private static final Object FAIL = new Object();

    /** The four schemes, each on its own allocator. */
    enum Scheme {
        NOVA(a -> new Nova(a, 1)),
        EPOCH(a -> new EpochSomar(a, 1)),
        HAZARD_ERAS(a -> new HazardErasSomar(a, 1)),
        GROW_ONLY(GrowOnlySomar::new);

        final Function<FloeAllocator, Somar> make;

        Scheme(Function<FloeAllocator, Somar> make) {
            this.make = make;
        }
    }

    /** A failure that no reader should survive on a live slice; an {@link Error}, not an exception. */
    private static final class GarbageError extends Error {
        GarbageError(String message) {
            super(message);
        }
    }

    private static void assertFailsCleanly(Somar somar, long p, String what) {
        assertSame(FAIL, somar.readOr(p, s -> fail("reader ran: " + what), FAIL), what);
        assertSame(FAIL, somar.writeOr(p, (s, x) -> fail("writer ran: " + what), null, FAIL), what);
        assertThrows(DeletedSliceException.class, () -> somar.read(p, s -> fail("reader ran: " + what)), what);
        assertThrows(DeletedSliceException.class, () -> somar.write(p, (s, x) -> fail("writer ran: " + what), null), what);
        assertFalse(somar.delete(p), what);
    }

    /**
     * A stale pointer whose block came back as another slice's attached run met the run's first
     * word, user bytes, where it expected a header: with bytes that look like its header it read,
     * wrote and deleted through them (the delete put the run on the retire list). Runs are now
     * large runs, which are never blocks to a pointer.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void stalePointersNeverTakeAnAttachedRunForAHeader(RegionMode mode) {
        try (FloeAllocator alloc = NovaTestSupport.open(mode)) {
            Nova nova = new Nova(alloc, 1);
            int n = 64;
            long[] stale = new long[n];
            for (int i = 0; i < n; i++) stale[i] = nova.allocate(Nova.MAX_SLICE); // 16 KiB blocks, one era
            int version = SafePointer.version(stale[0]);
            for (long p : stale) assertEquals(version, SafePointer.version(p));
            for (long p : stale) assertTrue(nova.delete(p));
            nova.reclaimNow();

            long lookalike = SliceHeader.of(version, 100); // what each stale pointer accepts as its header
            List<Long> owners = new ArrayList<>();
            long[] runSizes = {SizeClasses.MAX_SMALL, SizeClasses.MAX_SMALL - 8, 12_000, 100, 8};
            for (int i = 0; i < n; i++) {
                long owner = nova.allocateWithRun(8, runSizes[i % runSizes.length]);
                long run = nova.runOf(owner, nova.beginRead(owner));
                assertTrue(alloc.usableSize(run) >= runSizes[i % runSizes.length]);
                alloc.region().setLongPlain(run, lookalike);
                owners.add(owner);
            }
            for (long p : stale) assertFailsCleanly(nova, p, "stale " + NovaTestSupport.describe(p));
            for (long owner : owners) {
                long run = nova.runOf(owner, nova.beginRead(owner));
                assertEquals(lookalike, alloc.region().getLongPlain(run), "a run's bytes were changed");
                assertEquals(0, alloc.blockSizeAt(run), "the run at " + run + " is a size-class block");
                assertTrue(nova.delete(owner), "the owner is still live");
            }
            NovaTestSupport.assertAllReclaimed(nova);
        }
    }

    /**
     * A reader on bytes that are no longer its slice may fail with an {@link Error} as well as an
     * exception (an array sized by a garbage length, a recursion on a garbage depth): the read
     * fails as for an exception. On a live slice the error propagates unchanged.
     */
    @Test
    void anErrorFromAReaderOnADeletedSliceIsAFailure() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            Nova nova = new Nova(alloc, 1);
            long p = nova.allocate(16);
            Object r = assertDoesNotThrow(() -> nova.readOr(p, s -> {
                assertTrue(nova.delete(p)); // batch 1: freed at once
                throw new GarbageError("sized an array by a garbage length");
            }, FAIL));
            assertSame(FAIL, r);

            long q = nova.allocate(16);
            assertThrows(DeletedSliceException.class, () -> nova.read(q, s -> {
                assertTrue(nova.delete(q));
                throw new StackOverflowError("recursed on a garbage depth");
            }));

            long live = nova.allocate(16);
            GarbageError boom = new GarbageError("a real failure");
            assertSame(boom, assertThrows(GarbageError.class, () -> nova.readOr(live, s -> {
                throw boom;
            }, FAIL)), "on a live slice the reader's error is the caller's");
            assertTrue(nova.delete(live));
        }
    }

    /**
     * {@link Nova#validate} with the 0 that {@link Nova#beginRead} returns for "no slice": it said
     * true over zeroed memory (released or never used) and threw for a pointer beyond the region.
     */
    @Test
    void aZeroStampNeverValidates() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) { // mapped: untouched memory reads zeros
            Nova nova = new Nova(alloc, 1);
            long untouched = SafePointer.of(100L << 20, 5); // small area, never carved: reads zeros
            assertEquals(0, nova.beginRead(untouched));
            assertEquals(0, alloc.region().getLongPlain(100L << 20), "zeroed memory");
            assertFalse(nova.validate(untouched, 0), "nothing was read, nothing is valid");
            long beyond = SafePointer.of(SafePointer.MAX_OFFSET - 8, 5);
            assertFalse(nova.validate(beyond, 0), "a pointer beyond the region");

            long p = nova.allocate(8);
            long stamp = nova.beginRead(p);
            assertTrue(nova.validate(p, stamp));
            assertTrue(nova.delete(p));
            assertFalse(nova.validate(p, stamp));
            assertEquals(0, nova.beginRead(p));
            assertFalse(nova.validate(p, nova.beginRead(p)));

            Random rnd = new Random(11);
            for (int i = 0; i < 10_000; i++) {
                long x = rnd.nextLong();
                assertFalse(nova.validate(x, nova.beginRead(x)), () -> NovaTestSupport.describe(x));
            }
        }
    }

    /**
     * A protection whose header load throws (a pointer beyond the region given to
     * {@code protectOwned}, or any pointer once the allocator closed) gives its hazard slot back:
     * a slot left published would keep that offset from ever being reclaimed.
     */
    @Test
    void aProtectionThatThrowsLeavesNoHazardSlotBehind() {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(alloc);
            long beyond = SafePointer.of(alloc.region().size() + 64, 1);
            assertThrows(IndexOutOfBoundsException.class, () -> nova.protectOwned(beyond));
            assertFalse(HazardSlots.contains(nova.slots.snapshot(), SafePointer.headerOffset(beyond)),
                    "the failed protection left its slot published");
            assertEquals(0, nova.slots.snapshot().length);
        }
    }

    /**
     * {@link Nova#protect} returns -1 when it protected nothing, and the natural
     * {@code try/finally} then calls {@link Nova#unprotect} with it: that threw
     * ArrayIndexOutOfBoundsException. It is a no-op, and releases nobody else's slot.
     */
    @Test
    void unprotectOfMinusOneIsANoOp() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            Nova nova = new Nova(alloc, 1);
            long held = nova.allocate(8);
            int slot = nova.protect(held);
            assertTrue(slot >= 0);

            long dead = nova.allocate(8);
            assertTrue(nova.delete(dead));
            for (int none : new int[] {nova.protect(dead), nova.protectOwned(SafePointer.markDeleted(held)),
                    nova.protect(SafePointer.NULL)}) {
                assertEquals(-1, none);
                assertDoesNotThrow(() -> {
                    try {
                        // nothing to write
                    } finally {
                        nova.unprotect(none);
                    }
                });
            }
            assertTrue(nova.delete(held));
            nova.reclaimNow();
            assertEquals(1, nova.waitingSlices(), "the protection of the held slice survived");
            nova.unprotect(slot);
            NovaTestSupport.assertAllReclaimed(nova);
        }
    }

    /** A null reader or writer failed only when the slice was live: a DeletedSliceException hid the bug otherwise. */
    @ParameterizedTest
    @EnumSource(Scheme.class)
    void nullReadersAndWritersAreRefusedWhateverThePointer(Scheme scheme) {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            Somar somar = scheme.make.apply(alloc);
            long live = somar.allocate(8);
            long dead = somar.allocate(8);
            assertTrue(somar.delete(dead));
            for (long p : new long[] {live, dead, SafePointer.NULL, SafePointer.markDeleted(live), -1L}) {
                String what = scheme + ", " + NovaTestSupport.describe(p);
                assertThrows(NullPointerException.class, () -> somar.readOr(p, null, FAIL), what);
                assertThrows(NullPointerException.class, () -> somar.read(p, null), what);
                assertThrows(NullPointerException.class, () -> somar.writeOr(p, null, null, FAIL), what);
                assertThrows(NullPointerException.class, () -> somar.write(p, null, null), what);
                assertThrows(NullPointerException.class, () -> somar.writePrivate(p, null, null), what);
            }
            assertEquals(8L, (long) somar.read(live, s -> s.byteSize()), "the refused calls changed nothing");
            assertTrue(somar.delete(live));
        }
    }

    /** Constructors fail at once, clearly: on a closed or null allocator, and for a batch that cannot be allocated. */
    @Test
    void constructorsRefuseAClosedAllocatorNullAndHugeBatches() {
        FloeAllocator closed = NovaTestSupport.open(RegionMode.AUTO);
        closed.close();
        for (Scheme scheme : Scheme.values()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> scheme.make.apply(closed),
                    scheme::name);
            assertTrue(e.getMessage().contains(closed.name()), e.getMessage());
            NullPointerException npe = assertThrows(NullPointerException.class, () -> scheme.make.apply(null),
                    scheme::name);
            assertTrue(String.valueOf(npe.getMessage()).contains("allocator"), npe.getMessage());
        }
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            for (int batch : new int[] {Nova.MAX_BATCH + 1, 1 << 28, Integer.MAX_VALUE, 0, -5}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Nova(alloc, batch),
                        () -> "batch " + batch);
                assertTrue(e.getMessage().contains(Integer.toString(batch)), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> new EpochSomar(alloc, batch));
                assertThrows(IllegalArgumentException.class, () -> new HazardErasSomar(alloc, batch));
                assertThrows(IllegalArgumentException.class, () -> new Nova(alloc, batch, true));
            }
            Nova largest = new Nova(alloc, Nova.MAX_BATCH);
            assertTrue(largest.delete(largest.allocate(8)));
            largest.reclaimNow();
            assertEquals(0, largest.waitingSlices());
        }
    }

    /**
     * For every kind of pointer the throwing and non-throwing forms agree, and so do the private
     * forms: {@code read} returns what {@code readOr} returns or throws where it fails; a slice
     * deleted by either delete is refused by both.
     */
    @ParameterizedTest
    @EnumSource(Scheme.class)
    void throwingAndNonThrowingFormsAgree(Scheme scheme) {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            Somar somar = scheme.make.apply(alloc);
            long live = somar.allocate(16);
            somar.writePrivate(live, (s, v) -> {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
                return null;
            }, 77L);
            long deleted = somar.allocate(16);
            assertTrue(somar.delete(deleted));
            long privatelyDeleted = somar.allocate(16);
            somar.deletePrivate(privatelyDeleted);
            long[] pointers = {live, deleted, privatelyDeleted, SafePointer.markDeleted(live), SafePointer.NULL,
                    SafePointer.of(SafePointer.headerOffset(live), SafePointer.version(live) + 1), live + 8};
            for (long p : pointers) {
                String what = scheme + ", " + NovaTestSupport.describe(p);
                Object viaOr = somar.readOr(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), FAIL);
                Object written = somar.writeOr(p, (s, x) -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), null, FAIL);
                assertEquals(viaOr, written, what);
                if (viaOr == FAIL) {
                    assertNotEquals(live, p, what);
                    assertFailsCleanly(somar, p, what);
                    assertThrows(DeletedSliceException.class, () -> somar.writePrivate(p, (s, x) -> 1, null), what);
                    assertThrows(DeletedSliceException.class, () -> somar.deletePrivate(p), what);
                } else {
                    assertEquals(live, p, what);
                    assertEquals(77L, viaOr);
                    assertEquals(77L, (long) somar.read(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)), what);
                    assertEquals(77L, (long) somar.write(p, (s, x) -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), null));
                }
            }
            assertTrue(somar.delete(live));
            assertFalse(somar.delete(live), "a second delete");
            assertThrows(DeletedSliceException.class, () -> somar.deletePrivate(live), "deletePrivate after delete");
            somar.reclaimNow();
        }
    }

    /**
     * Thousands of short-lived virtual threads allocate, write, read and delete: each takes a
     * home retire stripe and dies with slices in its batches; reclaimNow() finds them all.
     */
    @ParameterizedTest
    @EnumSource(value = Scheme.class, names = {"NOVA", "EPOCH", "HAZARD_ERAS"})
    void virtualThreadsStrandNoDeletedSlice(Scheme scheme) throws Exception {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            RetiringSomar somar = (RetiringSomar) switch (scheme) {
                case NOVA -> new Nova(alloc, 64);
                case EPOCH -> new EpochSomar(alloc, 64);
                default -> new HazardErasSomar(alloc, 64);
            };
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2000; t++) {
                long id = t;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        for (int i = 0; i < 3; i++) {
                            long p = somar.allocate(24);
                            somar.write(p, (s, v) -> {
                                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
                                return null;
                            }, id);
                            if (i == 1) Thread.yield();
                            assertEquals(id, (long) somar.read(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)));
                            assertTrue(somar.delete(p));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) assertTrue(t.join(java.time.Duration.ofSeconds(60)), "a virtual thread hangs");
            if (!failures.isEmpty()) throw new AssertionError("a virtual thread failed", failures.peek());
            somar.reclaimNow();
            assertEquals(0, somar.waitingSlices(), "deleted slices left behind by dead threads");
            assertEquals(0, NovaTestSupport.liveBytes(alloc));
        }
    }
}
