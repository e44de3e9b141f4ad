package dev.floe.reclaim;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared drain machinery allocates (almost) nothing on the Java heap once warm: retire
 * batches reuse their arrays and their drain flag, the limbo its groups and its slot snapshot.
 * The drain here is {@link RetiringSomar}'s (seal, park, sweep against the hazard slots) with a
 * rule that frees into a counter, so that the allocator's own free path is not measured.
 */
class DeleteDrainAllocationTest {
    private static final int BATCH = 64;
    private static final int DRAINS = 2_000;
    /** Generous: what is left is the retire batch's 16–24-byte {@code Batch} object per seal (before: about 1 KB). */
    private static final long MAX_BYTES_PER_DRAIN = 64;

    private final EraClock clock = new EraClock();
    private final HazardSlots slots = new HazardSlots();
    private final EraLimbo limbo = new EraLimbo();
    private long freed;
    /** Frees what no slot holds, as Nova's rule does. */
    private final EraLimbo.Release rule = (era, refs, count, announced) -> {
        int kept = 0;
        for (int i = 0; i < count; i++) {
            if (announced.contains(refs[i])) refs[kept++] = refs[i];
            else freed++;
        }
        return kept;
    };
    private final RetireBatches retired = new RetireBatches(BATCH, RetireBatches.defaultStripes(), (refs, count) -> {
        limbo.park(clock.advance() - 1, refs, count);
        limbo.sweep(slots, clock, rule);
    });

    @Test
    void drainsAllocateAlmostNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!threads.isThreadAllocatedMemorySupported()) return; // nothing to measure with
        threads.setThreadAllocatedMemoryEnabled(true);
        long held = 8; // a reference some access holds: every snapshot has it, every sweep keeps it
        int slot = slots.protect(held);
        retireRange(1, BATCH * DRAINS); // warm-up: pools, buffers, thread-local state, the JIT
        long before = threads.getCurrentThreadAllocatedBytes();
        retireRange(BATCH * DRAINS + 1, BATCH * DRAINS);
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(bytes <= MAX_BYTES_PER_DRAIN * DRAINS,
                bytes + " bytes allocated by " + DRAINS + " drains: " + bytes / DRAINS + " per drain");
        assertEquals(2L * BATCH * DRAINS - 1, freed, "everything but the held reference was freed");
        assertEquals(1, limbo.waiting());
        slots.clear(slot);
        limbo.sweep(slots, clock, rule);
        assertEquals(0, limbo.waiting());
        assertEquals(2L * BATCH * DRAINS, freed);
    }

    /** Retires the {@code n} references from {@code first} on (whole batches: each add of the last index drains). */
    private void retireRange(long first, int n) {
        for (long r = first; r < first + n; r++) retired.add(r);
        assertEquals(0, retired.waiting());
    }
}
