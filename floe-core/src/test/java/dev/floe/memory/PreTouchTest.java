package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** {@link FloeAllocator.Builder#preTouch}: what becomes resident at build time, and its caps. */
class PreTouchTest {
    private static final long MIB = 1L << 20;

    private static FloeAllocator build(long budget, long preTouch) {
        return FloeAllocator.builder().regionSize(256 * MIB).budget(budget).preTouch(preTouch).jmx(false).build();
    }

    @Test
    void preTouchedBytesAreResidentBeforeAnyAllocation() {
        try (FloeAllocator a = build(64 * MIB, 8 * MIB)) {
            assumeTrue(a.region().mode() == RegionMode.MAPPED, "chunked regions have nothing to touch");
            long sb = FloeAllocator.DEFAULT_SUPERBLOCK_SIZE; // superblock 0 is reserved: the touch starts after it
            assertEquals(0, a.region().residentBytes(0, sb), "the reserved superblock is not touched");
            assertEquals(8 * MIB, a.region().residentBytes(sb, sb + 8 * MIB), "the first 8 MiB of superblocks are resident");
            assertEquals(0, a.region().residentBytes(sb + 8 * MIB, 16 * MIB), "nothing beyond them");
            long p = a.allocate(1000); // still an ordinary allocator
            a.free(p);
        }
    }

    @Test
    void withoutPreTouchNothingIsResident() {
        try (FloeAllocator a = build(64 * MIB, 0)) {
            assumeTrue(a.region().mode() == RegionMode.MAPPED);
            assertEquals(0, a.region().residentBytes(0, 16 * MIB));
        }
    }

    @Test
    void preTouchStopsAtTheBudget() {
        try (FloeAllocator a = build(4 * MIB, 64 * MIB)) {
            assumeTrue(a.region().mode() == RegionMode.MAPPED);
            assertEquals(4 * MIB, a.region().residentBytes(0, 64 * MIB), "capped at the 4 MiB budget");
        }
    }

    @Test
    void preTouchStopsAtTheSmallBlockArea() {
        // no budget: capped at the small-block area, half of the 256 MiB region
        try (FloeAllocator a = FloeAllocator.builder().regionSize(256 * MIB).preTouch(1L << 40).jmx(false).build()) {
            assumeTrue(a.region().mode() == RegionMode.MAPPED);
            assertTrue(a.region().residentBytes(0, 256 * MIB) <= 128 * MIB);
        }
    }

    @Test
    void negativePreTouchIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().preTouch(-1));
    }
}
