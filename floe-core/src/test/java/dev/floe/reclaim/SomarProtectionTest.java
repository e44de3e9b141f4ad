package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.SomarApiEdgeCaseTest.Scheme;
import dev.floe.memory.RegionMode;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What keeps a slice from being freed under an access, or retired twice: announcements of every
 * instance of a scheme on one allocator protect against the drains of all of them, a
 * {@code delete} racing a {@code deletePrivate} of the same slice has one winner, and a throwing
 * reader or writer leaves no announcement behind.
 */
class SomarProtectionTest {

    /** Writes {@code value} at 0 of a private slice. */
    private static void put(Somar somar, long p, long value) {
        somar.writePrivate(p, (s, v) -> {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            return null;
        }, value);
    }

    private static long get(Somar somar, long p) {
        return somar.read(p, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
    }

    /**
     * Control: a writer's hazard slot keeps its slice from being freed, even when the writer
     * itself deletes it and the batch (of 1) is drained at once.
     */
    @Test
    void aWriterKeepsItsSliceFromBeingFreedWithinOneNova() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Nova nova = new Nova(alloc, 1);
            long p = nova.allocate(16);
            long[] next = new long[1];
            nova.write(p, (s, x) -> {
                assertTrue(nova.delete(p)); // batch 1: drained now, p held by this writer
                next[0] = nova.allocate(16);
                put(nova, next[0], 7);
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 99L);
                return null;
            }, null);
            assertNotEquals(SafePointer.headerOffset(p), SafePointer.headerOffset(next[0]));
            assertEquals(7L, get(nova, next[0]));
        }
    }

    /**
     * Two Novas on one allocator (supported: they share the allocator's version clock) accept
     * each other's pointers, so a pointer may reach a write through the other instance. That
     * write's hazard slot must keep the slice from being freed by the instance that deletes it,
     * as it does within one instance; before, each instance scanned only its own slots, the
     * slice was freed and reused under the writer, and the writer's store landed in the new
     * slice (a write through a deleted slice).
     */
    @Test
    void aWriteThroughAnotherNovaOnTheSameAllocatorKeepsTheSliceFromBeingFreed() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Nova a = new Nova(alloc, 1);
            Nova b = new Nova(alloc, 1);
            long p = b.allocate(16);
            long[] next = new long[1];
            a.write(p, (s, x) -> {
                assertTrue(b.delete(p)); // batch 1: b drains now
                next[0] = b.allocate(16); // p's block if b freed it under this writer
                put(b, next[0], 7);
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 99L); // still p's view
                return null;
            }, null);
            assertEquals(7L, get(b, next[0]), "a writer of one instance wrote into another's new slice");
            assertNotEquals(SafePointer.headerOffset(p), SafePointer.headerOffset(next[0]),
                    "the slice was freed while a writer held it");
        }
    }

    /** The same with the roles swapped: the deleting instance is the one the writer did not use. */
    @Test
    void aDeleteThroughAnotherNovaWaitsForTheOwnersWriter() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Nova a = new Nova(alloc, 1);
            Nova b = new Nova(alloc, 1);
            long p = b.allocate(16);
            long[] next = new long[1];
            b.write(p, (s, x) -> {
                assertTrue(a.delete(p)); // a's batch of 1 drains now
                next[0] = b.allocate(16);
                put(b, next[0], 7);
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 99L);
                return null;
            }, null);
            assertEquals(7L, get(b, next[0]), "a writer wrote into the next occupant of its slice");
            assertNotEquals(SafePointer.headerOffset(p), SafePointer.headerOffset(next[0]));
        }
    }

    /**
     * The baselines' reads are not validated after the reader: the announcement must keep the
     * slice alive for the read. With two instances of one scheme on an allocator, a read through
     * one of another's pointer returned the next occupant's bytes as the slice's (a stale read
     * reported as a success) because the deleting instance's drain did not see the announcement.
     */
    @ParameterizedTest
    @EnumSource(value = Scheme.class, names = {"EPOCH", "HAZARD_ERAS"}) // reads protected by an announcement, not validated after
    void aReadThroughAnotherInstanceOfTheSameSchemeKeepsTheSliceAlive(Scheme scheme) {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Somar a = scheme.make.apply(alloc);
            Somar b = scheme.make.apply(alloc);
            long p = b.allocate(16);
            put(b, p, 5);
            long[] next = new long[1];
            long seen = a.read(p, s -> {
                assertTrue(b.delete(p)); // batch 1: b drains now
                next[0] = b.allocate(16);
                put(b, next[0], 7);
                return s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
            });
            assertEquals(5L, seen, "the read returned another slice's bytes");
            assertNotEquals(SafePointer.headerOffset(p), SafePointer.headerOffset(next[0]));
        }
    }

    /**
     * {@code deletePrivate} on a slice that was not private after all, racing with a
     * {@code delete} of the same slice: with its plain load and store both could succeed, the
     * slice was retired twice, and the second free threw {@code IllegalFreeException} out of
     * the {@code delete} that drained it (or, once the block was reused, freed the next
     * incarnation). Exactly one of them must win, as for two deletes. The two threads go through
     * the slices in lockstep so that they meet on each one.
     */
    @ParameterizedTest
    @EnumSource(value = Scheme.class)
    void aDeleteRacingADeletePrivateRetiresTheSliceOnce(Scheme scheme) throws Exception {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Somar somar = scheme.make.apply(alloc);
            int n = 10_000;
            long[] ptrs = new long[n];
            for (int i = 0; i < n; i++) ptrs[i] = somar.allocate(16);
            boolean[] deleted = new boolean[n];
            boolean[] deletedPrivately = new boolean[n];
            AtomicInteger doneA = new AtomicInteger();
            AtomicInteger doneB = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            Thread other = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < n; i++) {
                    while (doneB.get() < i) Thread.onSpinWait();
                    try {
                        deleted[i] = somar.delete(ptrs[i]);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                    doneA.set(i + 1);
                }
            });
            for (int i = 0; i < n; i++) {
                while (doneA.get() < i) Thread.onSpinWait();
                try {
                    somar.deletePrivate(ptrs[i]);
                    deletedPrivately[i] = true;
                } catch (DeletedSliceException lost) {
                    // the delete won
                } catch (Throwable e) {
                    errors.add(e);
                }
                doneB.set(i + 1);
            }
            other.join();
            somar.reclaimNow();
            if (!errors.isEmpty()) throw new AssertionError(errors.size() + " unexpected failures", errors.peek());
            for (int i = 0; i < n; i++) {
                assertTrue(deleted[i] != deletedPrivately[i], "slice " + i + ": both deletes succeeded: " + deleted[i]);
            }
        }
    }

    /**
     * A reader or writer that throws on a live slice: the exception reaches the caller, no
     * announcement is left behind (the slice is freed once deleted), and the slice stays usable.
     */
    @ParameterizedTest
    @EnumSource(value = Scheme.class, names = {"NOVA", "EPOCH", "HAZARD_ERAS"})
    void aThrowingCallbackLeavesNoAnnouncementAndTheSliceUsable(Scheme scheme) {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            RetiringSomar somar = (RetiringSomar) scheme.make.apply(alloc);
            long p = somar.allocate(16);
            put(somar, p, 3);
            assertThrows(IllegalStateException.class, () -> somar.write(p, (s, x) -> {
                throw new IllegalStateException("writer");
            }, null));
            assertThrows(IndexOutOfBoundsException.class, () -> somar.write(p, (s, x) -> {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, 1L); // past the slice
                return null;
            }, null));
            assertThrows(IllegalStateException.class, () -> somar.read(p, s -> {
                throw new IllegalStateException("reader");
            }));
            assertEquals(0, somar.slots.snapshot().length, "an announcement outlived its access");
            assertEquals(3L, get(somar, p));
            assertTrue(somar.delete(p));
            somar.reclaimNow();
            assertEquals(0, somar.waitingSlices());
            assertEquals(0, NovaTestSupport.liveBytes(alloc));
        }
    }
}
