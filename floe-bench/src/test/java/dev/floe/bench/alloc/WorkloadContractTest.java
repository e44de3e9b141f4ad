package dev.floe.bench.alloc;

import dev.floe.bench.harness.TimedRun;
import dev.floe.bench.harness.TimedTask;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The workloads keep the {@link OffHeapAllocator} slot contract under real concurrency: no slot
 * is reused while live, every write hits a live block, and everything allocated is freed by the
 * end of the run (the cross-thread consumer drains the ring after the stop).
 */
class WorkloadContractTest {

    @Test
    void ringWorkloadsFreeEveryBlockAndNeverReuseALiveSlot() throws Exception {
        int threads = 2;
        CheckingAllocator a = new CheckingAllocator(threads * TimedWorkload.RING_BLOCKS);
        SizeTable sizes = SizeTable.logUniform(16, 16384, 1);
        List<RingTask> tasks = List.of(
                new RingTask(a, 0, TimedWorkload.RING_BLOCKS, sizes, 0),
                new RingTask(a, TimedWorkload.RING_BLOCKS, TimedWorkload.RING_BLOCKS, sizes, 99));
        TimedRun.Outcome o = TimedRun.run(tasks, 0.2, () -> null);
        assertTrue(o.ops() > 0);
        assertEquals(0, a.violations.get());
        assertEquals(0, a.live());
        assertEquals(a.allocs.get(), a.frees.get());
        assertEquals(o.ops() + threads * TimedWorkload.RING_BLOCKS, a.allocs.get(), "one alloc per op plus the fill");
    }

    @Test
    void crossThreadPairsFreeEveryBlockAndNeverReuseALiveSlot() throws Exception {
        int pairs = 2;
        int capacity = 64; // small, so producers often wait for cells to come back
        CheckingAllocator b = new CheckingAllocator(pairs * capacity);
        List<TimedTask> tasks = new ArrayList<>();
        for (int p = 0; p < pairs; p++) tasks.addAll(CrossThreadPair.tasks(b, p * capacity, capacity, 64));
        TimedRun.Outcome o = TimedRun.run(tasks, 0.2, () -> null);
        assertTrue(o.ops() > 0);
        assertEquals(0, b.violations.get());
        assertEquals(0, b.live());
        assertEquals(b.allocs.get(), b.frees.get());
        assertTrue(b.frees.get() >= o.ops(), "counted frees are a subset of all frees");
    }
}
