package dev.floe.reclaim.baseline;

import static dev.floe.reclaim.baseline.BaselineTestSupport.isAllocated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EpochSomar;
import dev.floe.reclaim.SafePointer;
import dev.floe.reclaim.Somar;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link EpochSomar} ({@code floe-ebr}): the SOMAR contract, and EBR's lack of robustness. */
class EbrSomarTest extends BaselineContract {
    @Override
    Somar open(FloeAllocator alloc, int batch) {
        return new EpochSomar(alloc, batch);
    }

    @Override
    long waiting(Somar somar) {
        return ((EpochSomar) somar).waitingSlices();
    }

    @Override
    boolean reclaims() {
        return true;
    }

    /**
     * EBR is not robust: one reader stalled inside a read of one slice keeps every slice deleted
     * after it pinned from being freed — here 5,000 slices it never touched, born after it
     * pinned — until it leaves; then all of them go back at once.
     */
    @Test
    void aStalledReaderBlocksTheReclamationOfEverySliceDeletedAfterItPinned() throws Exception {
        EpochSomar ebr = new EpochSomar(alloc, 16);
        long x = BaselineContract.stamped(ebr, 16);
        long liveBefore = alloc.stats().liveBytes();
        StalledReader reader = StalledReader.enter(ebr, x);
        long epochAtPin = ebr.epoch();

        List<Long> unrelated = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            long p = BaselineContract.stamped(ebr, 64);
            assertTrue(ebr.delete(p));
            unrelated.add(p);
        }
        ebr.reclaimNow();
        assertTrue(ebr.epoch() > epochAtPin + 100, "the epoch moved on: " + epochAtPin + " -> " + ebr.epoch());
        assertEquals(5_000, ebr.waitingSlices(), "nothing deleted after the stalled reader pinned is freed");
        for (long p : unrelated) assertTrue(isAllocated(alloc, SafePointer.headerOffset(p)));
        assertTrue(alloc.stats().liveBytes() >= liveBefore + 5_000 * 72L, "the leak is visible to the allocator");

        assertEquals(x, reader.finish());
        ebr.reclaimNow();
        assertEquals(0, ebr.waitingSlices(), "everything is freed once the reader leaves");
        assertEquals(liveBefore, alloc.stats().liveBytes(), "only the read slice is still allocated");
        for (long p : unrelated) assertFalse(isAllocated(alloc, SafePointer.headerOffset(p)));
    }

    /** Without a stalled access, a drained batch is freed at once: EBR only delays, it does not leak. */
    @Test
    void withNoAccessInFlightEveryDrainFreesItsBatch() {
        EpochSomar ebr = new EpochSomar(alloc, 8);
        long start = ebr.epoch();
        for (int i = 0; i < 800; i++) assertTrue(ebr.delete(BaselineContract.stamped(ebr, 32)));
        assertEquals(start + 100, ebr.epoch(), "one epoch per batch of 8");
        assertEquals(0, ebr.waitingSlices());
        assertEquals(0, alloc.stats().liveBytes());
    }
}
