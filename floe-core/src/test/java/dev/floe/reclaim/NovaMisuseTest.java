package dev.floe.reclaim;

import static dev.floe.reclaim.NovaTestSupport.stamp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Misuse never crashes, never corrupts and never succeeds (ARCHITECTURE.md invariants 2, 3 and 6):
 * random longs, {@link SafePointer#NULL}, pointers into released superblocks and operations after
 * the allocator closed get a failure result, a {@link DeletedSliceException} or an
 * {@link IllegalStateException} — and never run user code on memory that is not their slice.
 */
class NovaMisuseTest {
    private static final Object FAIL = new Object();
    private static final int RANDOM_POINTERS = 300_000;

    /** Every operation through {@code p} fails cleanly and runs no user code. */
    private static void assertFailsCleanly(Nova nova, long p) {
        assertFailsCleanly(nova, p, true);
    }

    /**
     * Every non-throwing operation through {@code p} fails and runs no user code; with
     * {@code throwingForms} also the throwing ones (slower: an exception each).
     */
    private static void assertFailsCleanly(Nova nova, long p, boolean throwingForms) {
        if (nova.readOr(p, s -> fail("reader ran for " + NovaTestSupport.describe(p)), FAIL) != FAIL) {
            fail("readOr succeeded for " + NovaTestSupport.describe(p));
        }
        if (nova.writeOr(p, (s, x) -> fail("writer ran for " + NovaTestSupport.describe(p)), null, FAIL) != FAIL) {
            fail("writeOr succeeded for " + NovaTestSupport.describe(p));
        }
        if (nova.delete(p)) fail("delete succeeded for " + NovaTestSupport.describe(p));
        if (nova.length(p) != -1) fail("length of " + NovaTestSupport.describe(p) + " is " + nova.length(p));
        if (!throwingForms) return;
        try {
            nova.read(p, s -> fail("reader ran for " + NovaTestSupport.describe(p)));
            fail("read succeeded for " + NovaTestSupport.describe(p));
        } catch (DeletedSliceException expected) {
            // the clean failure
        }
        try {
            nova.write(p, (s, x) -> fail("writer ran for " + NovaTestSupport.describe(p)), null);
            fail("write succeeded for " + NovaTestSupport.describe(p));
        } catch (DeletedSliceException expected) {
            // the clean failure
        }
        try {
            nova.writePrivate(p, (s, x) -> fail("private writer ran for " + NovaTestSupport.describe(p)), null);
            fail("writePrivate succeeded for " + NovaTestSupport.describe(p));
        } catch (DeletedSliceException expected) {
            // the clean failure
        }
        try {
            nova.deletePrivate(p);
            fail("deletePrivate succeeded for " + NovaTestSupport.describe(p));
        } catch (DeletedSliceException expected) {
            // the clean failure
        }
    }

    /** Live witness slices, stamped with their pointers; checks that misuse changed none of them. */
    private static final class Witnesses {
        final Nova nova;
        final List<Long> ptrs = new ArrayList<>();
        final Set<Long> values = new HashSet<>();

        Witnesses(Nova nova, int n, Random rnd) {
            this.nova = nova;
            for (int i = 0; i < n; i++) {
                long p = nova.allocate(8 + rnd.nextInt(600));
                nova.writePrivate(p, (s, x) -> {
                    stamp(s, p);
                    return null;
                }, null);
                ptrs.add(p);
                values.add(p);
            }
        }

        void check() {
            for (long p : ptrs) assertEquals(p, nova.read(p, NovaTestSupport::owner), "witness " + p + " changed");
        }

        void deleteAll() {
            for (long p : ptrs) assertTrue(nova.delete(p));
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void randomLongsFailCleanly(RegionMode mode) {
        try (FloeAllocator alloc = NovaTestSupport.open(mode)) {
            Nova nova = new Nova(alloc, 8);
            Random rnd = new Random(0xF10EL);
            Witnesses w = new Witnesses(nova, 3000, rnd);
            // some deleted and reclaimed slices too: their headers carry the deleted bit or newer versions
            List<Long> dead = new ArrayList<>();
            for (int i = 0; i < 1000; i++) dead.add(nova.allocate(8 + rnd.nextInt(600)));
            for (long p : dead) assertTrue(nova.delete(p));
            nova.reclaimNow();
            long smallArea = alloc.region().size() / 2;

            List<LongSupplier> forgers = List.of(
                    rnd::nextLong,                                              // anything at all
                    () -> rnd.nextLong() & ~SafePointer.DELETED,                // without the deleted mark
                    () -> SafePointer.of((rnd.nextLong(smallArea)) & ~7L, 1 + rnd.nextInt(4)), // plausible
                    () -> { // a witness's position with a wrong version
                        long p = w.ptrs.get(rnd.nextInt(w.ptrs.size()));
                        int v = SafePointer.version(p) + (rnd.nextBoolean() ? 1 : -1) * (1 + rnd.nextInt(3));
                        return SafePointer.of(SafePointer.headerOffset(p), v);
                    },
                    () -> SafePointer.markDeleted(w.ptrs.get(rnd.nextInt(w.ptrs.size()))), // witness, marked deleted
                    () -> w.ptrs.get(rnd.nextInt(w.ptrs.size())) + 8 * (1 + rnd.nextInt(64)), // inside a slice
                    () -> dead.get(rnd.nextInt(dead.size())),                    // deleted and freed
                    () -> SafePointer.of(SafePointer.headerOffset(w.ptrs.get(rnd.nextInt(w.ptrs.size()))), 0));
            int tried = 0;
            for (int i = 0; i < RANDOM_POINTERS; i++) {
                long p = forgers.get(i % forgers.size()).getAsLong();
                if (w.values.contains(p)) continue; // by chance a live pointer: not a forgery
                tried++;
                assertFailsCleanly(nova, p, (i / forgers.size()) % 8 == 0); // throwing forms: 1 in 8 of each kind
            }
            assertTrue(tried > RANDOM_POINTERS * 9 / 10);
            w.check();
            assertEquals(3000, w.ptrs.stream().filter(p -> nova.length(p) >= 8).count(), "witnesses still live");
            w.deleteAll();
            NovaTestSupport.assertAllReclaimed(nova);
        }
    }

    @Test
    void nullPointerFails() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.AUTO)) {
            Nova nova = new Nova(alloc);
            assertFailsCleanly(nova, SafePointer.NULL);
            assertFailsCleanly(nova, SafePointer.markDeleted(SafePointer.NULL));
            assertFailsCleanly(nova, -1L);
            assertFailsCleanly(nova, Long.MIN_VALUE);
            assertFailsCleanly(nova, Long.MAX_VALUE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void pointersIntoReleasedSuperblocksFail(RegionMode mode) {
        long sb = 64 << 10;
        try (FloeAllocator alloc = NovaTestSupport.builder(mode).superblockSize(sb).build()) {
            Nova nova = new Nova(alloc, 64);
            int n = (int) (6 * sb / 128); // six superblocks of 128-byte blocks
            long[] ptrs = new long[n];
            for (int i = 0; i < n; i++) {
                long p = nova.allocate(120);
                nova.writePrivate(p, (s, x) -> {
                    stamp(s, p);
                    return null;
                }, null);
                ptrs[i] = p;
            }
            long releasesBefore = alloc.stats().superblockReleases();
            for (long p : ptrs) assertTrue(nova.delete(p));
            nova.reclaimNow();
            alloc.trim();
            assertTrue(alloc.stats().superblockReleases() - releasesBefore >= 5,
                    () -> "superblocks were released: " + alloc.stats());
            assertEquals(0, alloc.stats().liveBytes());
            int zeroHeaders = 0;
            for (long p : ptrs) {
                if (alloc.region().getLongPlain(SafePointer.headerOffset(p)) == 0) zeroHeaders++;
                assertFailsCleanly(nova, p);
                assertFailsCleanly(nova, p & ~SafePointer.DELETED);
                // version 0 over a zeroed header: SliceHeader.matches(0, p) holds, so only the
                // refusal of version 0 before any read keeps the reader out
                assertFailsCleanly(nova, SafePointer.of(SafePointer.headerOffset(p), 0));
            }
            assertTrue(zeroHeaders >= n * 5 / 6, "released headers read as zeros (readable after free)");
            // the released superblocks are reused; the old pointers still fail against the new slices
            long[] fresh = new long[n];
            for (int i = 0; i < n; i++) fresh[i] = nova.allocate(120);
            for (long p : ptrs) assertFailsCleanly(nova, p);
            for (long q : fresh) assertTrue(nova.delete(q));
            NovaTestSupport.assertAllReclaimed(nova);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void operationsAfterCloseThrowIllegalStateExceptionOrFail(RegionMode mode) {
        FloeAllocator alloc = NovaTestSupport.open(mode);
        Nova nova = new Nova(alloc, 1000);
        long live = nova.allocate(40);
        long deleted = nova.allocate(40);
        assertTrue(nova.delete(deleted));
        long forged = SafePointer.of(alloc.region().size() - 64, 3); // in the large area: no block there
        alloc.close();

        // pointers that name a block touch the (closed) region: IllegalStateException, no crash
        assertThrows(IllegalStateException.class, () -> nova.allocate(40));
        for (long p : new long[] {live, deleted}) {
            assertThrows(IllegalStateException.class, () -> nova.readOr(p, s -> 1, FAIL));
            assertThrows(IllegalStateException.class, () -> nova.read(p, s -> 1));
            assertThrows(IllegalStateException.class, () -> nova.writeOr(p, (s, x) -> 1, null, FAIL));
            assertThrows(IllegalStateException.class, () -> nova.write(p, (s, x) -> 1, null));
            assertThrows(IllegalStateException.class, () -> nova.delete(p));
            assertThrows(IllegalStateException.class, () -> nova.length(p));
            assertThrows(IllegalStateException.class, () -> nova.writePrivate(p, (s, x) -> 1, null));
            assertThrows(IllegalStateException.class, () -> nova.deletePrivate(p));
        }
        // a pointer that names no block is refused before any memory is touched: a clean failure
        assertFailsCleanly(nova, forged);
        assertFailsCleanly(nova, SafePointer.NULL);
        // the pending deleted slice cannot be freed into a closed allocator
        assertThrows(IllegalStateException.class, nova::reclaimNow);
        nova.reclaimNow(); // nothing left to drain: a no-op
    }

    @Test
    void regionsBeyondTheReferenceRangeAreRefused() {
        FloeAllocator big;
        try {
            big = FloeAllocator.builder().regionSize(SafePointer.MAX_OFFSET * 2).mode(RegionMode.MAPPED)
                    .jmx(false).build();
        } catch (RuntimeException e) {
            Assumptions.abort("cannot reserve " + (SafePointer.MAX_OFFSET * 2 >>> 30) + " GiB here: " + e);
            return;
        }
        try (big) {
            assertThrows(IllegalArgumentException.class, () -> new Nova(big));
        }
    }

    /**
     * Safety across SOMAR instances: each {@link Nova} has its own era clock, so two instances on
     * one allocator can issue the same version for the same block. A stale pointer of the first
     * then matches the second's new slice. Either sharing an allocator must be refused, or a stale
     * pointer must fail whichever instance reused its block.
     */
    @Test
    void twoNovasOnOneAllocatorNeverValidateEachOthersStalePointers() {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Nova a = new Nova(alloc, 1);
            Nova b;
            try {
                b = new Nova(alloc, 1);
            } catch (IllegalArgumentException | IllegalStateException refused) {
                return; // sharing an allocator is refused: also safe
            }
            long stale = a.allocate(16);
            a.writePrivate(stale, (s, x) -> {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 111L);
                return null;
            }, null);
            assertTrue(a.delete(stale)); // batch 1: freed at once
            long other = b.allocate(16); // same thread, same size: the same block comes back
            b.writePrivate(other, (s, x) -> {
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 222L);
                return null;
            }, null);
            assertEquals(SafePointer.headerOffset(stale), SafePointer.headerOffset(other), "the block was reused");
            assertNotEquals(stale, other,
                    "the reuse issued the stale pointer's exact value again (same offset, same version "
                            + SafePointer.version(stale) + "): every stale copy now names the new slice");
            assertSame(FAIL, a.readOr(stale, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), FAIL),
                    "a stale pointer read another instance's slice");
            assertFalse(a.delete(stale), "a stale pointer deleted another instance's live slice");
            assertEquals(222L, (long) b.read(other, s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)));
        }
    }
}
