package dev.floe.reclaim;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Magic-number mode (Nova paper, appendix B) with superblock re-carving: once an emptied
 * superblock is carved for another size class, old safe pointers land on positions that are no
 * longer headers, and must still fail.
 */
class NovaMagicNumberTest {

    private static FloeAllocator recarving(RegionMode mode) {
        return FloeAllocator.builder().mode(mode).regionSize(64L << 20).superblockSize(64L << 10)
                .recarveEmptySuperblocks(true).jmx(false).build();
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void stalePointersFailAfterTheirSuperblockIsRecarvedForAnotherClass(RegionMode mode) {
        try (FloeAllocator alloc = recarving(mode)) {
            Nova nova = new Nova(alloc, 1, true);
            assertTrue(nova.magicNumbers());
            // fill whole superblocks with 100-byte slices (116-byte blocks: 128 B class)
            List<Long> old = new ArrayList<>();
            for (int i = 0; i < 4_000; i++) {
                long p = nova.allocate(100);
                nova.writePrivate(p, (s, v) -> { s.set(JAVA_LONG, 0, v); return null; }, p);
                old.add(p);
            }
            Set<Long> oldSuperblocks = new HashSet<>();
            for (long p : old) oldSuperblocks.add(SafePointer.headerOffset(p) >>> 16);
            for (long p : old) assertTrue(nova.delete(p));
            nova.reclaimNow();
            alloc.trim(); // every 128 B superblock is now EMPTY and released
            assertEquals(0, alloc.stats().liveBytes());

            // a different class takes the emptied superblocks over (no fresh carving needed)
            int recarved = 0;
            List<Long> fresh = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                long p = nova.allocate(300); // 320 B class
                nova.writePrivate(p, (s, v) -> { s.set(JAVA_LONG, 0, v); return null; }, p);
                fresh.add(p);
                if (oldSuperblocks.contains(SafePointer.headerOffset(p) >>> 16)) recarved++;
            }
            assertTrue(recarved > 0, "the allocator re-carved emptied superblocks for the 320 B class");

            for (long p : old) {
                assertEquals(-1L, nova.readOr(p, s -> s.get(JAVA_LONG, 0), -1L), "stale read must fail");
                assertEquals(-1L, (long) nova.writeOr(p, (s, v) -> { s.set(JAVA_LONG, 0, v); return 0L; }, 7L, -1L));
                assertFalse(nova.delete(p));
                assertEquals(-1, nova.length(p));
            }
            for (long p : fresh) {
                assertEquals(p, (long) nova.read(p, s -> s.get(JAVA_LONG, 0)), "fresh slices intact");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void magicModeHeadersTakeSixteenBytesAndTheLargestSliceShrinks(RegionMode mode) {
        try (FloeAllocator alloc = recarving(mode)) {
            Nova nova = new Nova(alloc, 8, true);
            assertEquals(Nova.MAX_SLICE - 8, nova.maxSlice());
            long p = nova.allocate(nova.maxSlice());
            assertEquals(nova.maxSlice(), nova.length(p));
            assertThrows(IllegalArgumentException.class, () -> nova.allocate(nova.maxSlice() + 1));
            // 112 bytes + 16 of header fill a 128-byte block exactly
            long q = nova.allocate(112);
            assertEquals(128, alloc.blockSizeAt(SafePointer.headerOffset(q)));
        }
    }
}
