package dev.floe.bench.harness;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link SafepointPauses} finds a forced GC pause inside the interval around it, and none outside the recording. */
class SafepointPausesTest {
    @Test
    void aForcedCollectionIsAPauseInsideItsInterval() throws InterruptedException {
        long gcFrom, gcTo;
        SafepointPauses pauses = SafepointPauses.start();
        try {
            Thread.sleep(20);
            gcFrom = System.nanoTime();
            System.gc(); // a full collection: a stop-the-world safepoint operation
            gcTo = System.nanoTime();
        } finally {
            pauses.close();
        }
        assertTrue(pauses.count() > 0, "the collection was recorded");
        assertTrue(pauses.overlaps(gcFrom, gcTo), "the collection lies inside the interval around System.gc()");
        long later = gcTo + 10_000_000_000L; // after the recording ended: nothing can overlap it
        assertFalse(pauses.overlaps(later, later + 1_000_000_000L));
        pauses.close(); // twice is harmless
    }
}
