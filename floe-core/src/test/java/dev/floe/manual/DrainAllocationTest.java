package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Abandoning allocates (almost) nothing on the Java heap: the retire batches, the limbo, the
 * slot snapshot and the participant scan reuse their storage, so a drain (stamp, park, advance,
 * snapshot, free) costs no garbage in the steady state. Only the owners are heap objects, and
 * they are created before the measured abandons.
 */
class DrainAllocationTest {
    private static final int BATCH = 64;
    private static final int DRAINS = 2_000;
    /**
     * Generous bound per drain: the one allocation left is the retire batch's 16–24-byte
     * {@code Batch} object per seal; before the reuse, a drain allocated about 1 KB (a copy of the
     * batch, queue nodes, the snapshot arrays, a thread-local entry, a lambda).
     */
    private static final long MAX_BYTES_PER_DRAIN = 64;

    @Test
    void drainsAllocateAlmostNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!threads.isThreadAllocatedMemorySupported()) return; // nothing to measure with
        threads.setThreadAllocatedMemoryEnabled(true);
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(BATCH, 1024));
            try (Shield open = heap.create(16).defend()) { // a participant with a shield: snapshots see a slot
                assertEquals(16, open.byteSize());
                abandonAll(heap, DRAINS); // warm-up: pools, buffers, thread-local state, the JIT
                Owner[] owners = create(heap, BATCH * DRAINS);
                long before = threads.getCurrentThreadAllocatedBytes();
                for (Owner o : owners) o.abandon();
                long bytes = threads.getCurrentThreadAllocatedBytes() - before;
                assertTrue(heap.freedCount() > (long) BATCH * DRAINS, "objects were freed: " + heap.freedCount());
                assertTrue(bytes <= MAX_BYTES_PER_DRAIN * DRAINS,
                        bytes + " bytes allocated by " + DRAINS + " drains: " + bytes / DRAINS + " per drain");
            }
            heap.reclaim();
        }
    }

    private static void abandonAll(ManualHeap heap, int drains) {
        for (Owner o : create(heap, BATCH * drains)) o.abandon();
    }

    private static Owner[] create(ManualHeap heap, int n) {
        Owner[] owners = new Owner[n];
        for (int i = 0; i < n; i++) owners[i] = heap.create(32);
        return owners;
    }
}
