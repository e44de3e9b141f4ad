package dev.floe.reclaim.baseline;

import static dev.floe.reclaim.baseline.BaselineTestSupport.isAllocated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.HazardErasSomar;
import dev.floe.reclaim.SafePointer;
import dev.floe.reclaim.Somar;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link HazardErasSomar} ({@code floe-he}): the SOMAR contract, and Hazard Eras' bound on what
 * a stalled access holds back.
 */
class HazardErasSomarTest extends BaselineContract {
    @Override
    Somar open(FloeAllocator alloc, int batch) {
        return new HazardErasSomar(alloc, batch);
    }

    @Override
    long waiting(Somar somar) {
        return ((HazardErasSomar) somar).waitingSlices();
    }

    @Override
    boolean reclaims() {
        return true;
    }

    /**
     * A reader stalled in era {@code a} holds back exactly the slices whose lifetime
     * {@code [birth, retire]} contains {@code a}: those live when it announced. Slices born
     * after it announced are freed as soon as they are deleted, however many there are.
     */
    @Test
    void aStalledReaderBlocksOnlySlicesWhoseLifetimeSpansItsEra() throws Exception {
        HazardErasSomar he = new HazardErasSomar(alloc, 1); // every delete drains and advances the era
        List<Long> older = new ArrayList<>();
        for (int i = 0; i < 50; i++) older.add(BaselineContract.stamped(he, 32));
        long x = BaselineContract.stamped(he, 32);
        StalledReader reader = StalledReader.enter(he, x);
        long announced = he.era();

        long bornInItsEra = BaselineContract.stamped(he, 32); // before any advance: born in era `announced`
        assertTrue(he.delete(bornInItsEra));
        assertTrue(he.era() > announced);
        List<Long> younger = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            long p = BaselineContract.stamped(he, 64);
            assertTrue(he.delete(p));
            younger.add(p);
        }
        for (long p : older) assertTrue(he.delete(p));
        assertTrue(he.delete(x));
        he.reclaimNow();

        assertEquals(older.size() + 2, he.waitingSlices(),
                "held: the slices live in the reader's era (older ones, x, the one born in it), nothing else");
        for (long p : older) assertTrue(isAllocated(alloc, SafePointer.headerOffset(p)));
        assertTrue(isAllocated(alloc, SafePointer.headerOffset(bornInItsEra)));
        long youngerHeld = younger.stream().filter(p -> isAllocated(alloc, SafePointer.headerOffset(p))
                && !older.contains(p)).count();
        assertTrue(youngerHeld <= 1, "younger blocks still allocated: " + youngerHeld
                + " (at most one, reused by the last allocation)");

        assertEquals(x, reader.finish(), "the stalled read completed on its own incarnation");
        he.reclaimNow();
        assertEquals(0, he.waitingSlices());
        assertEquals(0, alloc.stats().liveBytes());
    }

    /** Deleting a slice the stalled reader is not in, but that was live in its era, is held; after, freed. */
    @Test
    void aSliceBornAfterTheStalledReadersEraIsFreedAtOnce() throws Exception {
        HazardErasSomar he = new HazardErasSomar(alloc, 1);
        long x = BaselineContract.stamped(he, 16);
        StalledReader reader = StalledReader.enter(he, x);
        assertTrue(he.delete(BaselineContract.stamped(he, 16))); // born in the reader's era: held; era advances
        long young = BaselineContract.stamped(he, 16);
        assertTrue(he.delete(young));
        assertFalse(isAllocated(alloc, SafePointer.headerOffset(young)), "freed by its own drain");
        assertEquals(1, he.waitingSlices());
        assertEquals(x, reader.finish());
        he.reclaimNow();
        assertEquals(0, he.waitingSlices());
    }
}
