package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The cache stripes create a size class's bin when a call first needs it, so an allocator that
 * serves a few classes holds a few bins on the heap, not 40 per stripe; and a bin that fills and
 * flushes half of itself through the lazily created scratch loses and duplicates no block.
 */
class CacheBinsTest {

    private static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 30).cacheStripes(8).jmx(false).build();
    }

    @Test
    void aFreshAllocatorHasNoBins() {
        try (FloeAllocator a = allocator()) {
            assertEquals(0, a.cacheBinsCreated());
        }
    }

    @Test
    void oneBinPerClassThatOneThreadUses() {
        try (FloeAllocator a = allocator()) {
            long x = a.allocate(48);
            assertEquals(1, a.cacheBinsCreated());
            long y = a.allocate(48);
            a.free(x);
            a.free(y);
            assertEquals(1, a.cacheBinsCreated());
            long big = a.allocate(4000);
            long small = a.allocate(16);
            assertEquals(3, a.cacheBinsCreated());
            a.free(big);
            a.free(small);
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            assertEquals(3, a.cacheBinsCreated(), "trim empties bins, keeps them");
        }
    }

    @Test
    void fullBinsFlushThroughTheScratchWithoutLosingOrDuplicatingBlocks() {
        try (FloeAllocator a = allocator()) {
            int n = 10 * BlockCaches.capacityOf(SizeClasses.blockSize(SizeClasses.classOf(64)));
            long[] blocks = new long[n];
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < n; i++) blocks[i] = a.allocate(64);
                // distinct blocks: a block cached twice would be handed out twice
                assertEquals(n, java.util.Arrays.stream(blocks).distinct().count(), "round " + round);
                for (int i = 0; i < n; i++) a.free(blocks[i]); // the bin overflows n / capacity times
            }
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }
}
