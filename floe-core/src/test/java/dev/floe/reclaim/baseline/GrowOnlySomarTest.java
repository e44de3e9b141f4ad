package dev.floe.reclaim.baseline;

import static dev.floe.reclaim.baseline.BaselineTestSupport.FAILED;
import static dev.floe.reclaim.baseline.BaselineTestSupport.isAllocated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.GrowOnlySomar;
import dev.floe.reclaim.SafePointer;
import dev.floe.reclaim.Somar;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link GrowOnlySomar} ({@code grow-only}): the SOMAR contract without any reclamation. */
class GrowOnlySomarTest extends BaselineContract {
    @Override
    Somar open(FloeAllocator alloc, int batch) {
        return new GrowOnlySomar(alloc);
    }

    @Override
    long waiting(Somar somar) {
        return ((GrowOnlySomar) somar).deletedSlices();
    }

    @Override
    boolean reclaims() {
        return false;
    }

    @Test
    void deletedBlocksAreNeverFreedYetEveryStalePointerFails() {
        GrowOnlySomar g = new GrowOnlySomar(alloc);
        List<Long> deleted = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            long p = BaselineContract.stamped(g, 48);
            assertTrue(g.delete(p));
            deleted.add(p);
        }
        long live = alloc.stats().liveBytes();
        g.reclaimNow();
        assertEquals(live, alloc.stats().liveBytes(), "reclaimNow frees nothing");
        assertEquals(1_000, g.deletedSlices());
        for (long p : deleted) {
            assertTrue(isAllocated(alloc, SafePointer.headerOffset(p)));
            assertEquals(FAILED, g.readOr(p, BaselineTestSupport::owner, FAILED));
            assertEquals(-1, g.length(p));
            assertFalse(g.delete(p));
        }
        long fresh = BaselineContract.stamped(g, 48);
        assertFalse(deleted.stream().anyMatch(p -> SafePointer.headerOffset(p) == SafePointer.headerOffset(fresh)));
        assertEquals(48, g.length(fresh));
    }
}
