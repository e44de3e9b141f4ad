package dev.floe.bench.manual;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ManualPayloadCacheTest {
    /** The region is the smallest power of two whose small-object half holds the whole budget. */
    @Test
    void theRegionIsSizedForTheBudget() {
        assertEquals(1L << 30, ManualPayloadCache.regionFor(384L << 20)); // quick: 384 MiB off-heap
        assertEquals(16L << 30, ManualPayloadCache.regionFor(4608L << 20)); // full: 4.5 GiB
        assertEquals(128L << 20, ManualPayloadCache.regionFor(64L << 20));
        for (long budget = 1L << 20; budget < 1L << 40; budget = budget * 3 / 2) {
            long region = ManualPayloadCache.regionFor(budget);
            assertEquals(1, Long.bitCount(region));
            assertTrue(region / 2 >= budget && region / 4 < budget, budget + " -> " + region);
        }
    }
}
