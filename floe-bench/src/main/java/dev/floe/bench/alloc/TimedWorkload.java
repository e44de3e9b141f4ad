package dev.floe.bench.alloc;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.TimedRun;
import dev.floe.bench.harness.TimedTask;
import dev.floe.bench.harness.Trial;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The throughput workloads ({@code same-thread}, {@code mixed-sizes}, {@code cross-thread}):
 * open one allocator for the trial, warm up on it, then count operations for the duration with
 * fresh tasks, and take the memory snapshot at the end of the window while every block is live.
 */
final class TimedWorkload implements AllocWorkload {

    /** Live blocks per thread in the ring workloads. */
    static final int RING_BLOCKS = 256;
    /** Cells of each cross-thread hand-off ring. */
    static final int HANDOFF_CAPACITY = 1024;
    /** Block size of {@code same-thread} and {@code cross-thread}. */
    static final int BLOCK_BYTES = 64;

    /** Builds the tasks of one timed run. */
    private interface TaskFactory {
        List<TimedTask> create(OffHeapAllocator allocator, int threads);
    }

    private final int slotsPerThread;
    private final int osThreadsPerThread;
    private final TaskFactory factory;

    private TimedWorkload(int slotsPerThread, int osThreadsPerThread, TaskFactory factory) {
        this.slotsPerThread = slotsPerThread;
        this.osThreadsPerThread = osThreadsPerThread;
        this.factory = factory;
    }

    /** A ring of {@link #RING_BLOCKS} live blocks per thread, sizes drawn from {@code sizes}. */
    static TimedWorkload ring(SizeTable sizes) {
        return new TimedWorkload(RING_BLOCKS, 1, (allocator, threads) -> {
            List<TimedTask> tasks = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                tasks.add(new RingTask(allocator, t * RING_BLOCKS, RING_BLOCKS, sizes, t * 7919));
            }
            return tasks;
        });
    }

    /** {@code threads} producer/consumer pairs of {@link #BLOCK_BYTES}-byte blocks. */
    static TimedWorkload crossThread() {
        return new TimedWorkload(HANDOFF_CAPACITY, 2, (allocator, pairs) -> {
            List<TimedTask> tasks = new ArrayList<>();
            for (int p = 0; p < pairs; p++) {
                tasks.addAll(CrossThreadPair.tasks(allocator, p * HANDOFF_CAPACITY, HANDOFF_CAPACITY, BLOCK_BYTES));
            }
            return tasks;
        });
    }

    @Override
    public Sample measure(AllocImpl impl, Trial trial) throws Exception {
        int threads = trial.threads();
        try (OffHeapAllocator allocator = impl.open(threads * slotsPerThread)) {
            if (trial.warmupSeconds() > 0) {
                TimedRun.run(factory.create(allocator, threads), trial.warmupSeconds(), () -> null);
            }
            TimedRun.Outcome o = TimedRun.run(factory.create(allocator, threads), trial.durationSeconds(),
                    () -> MemorySnapshot.capture(allocator.committedBytes(), allocator.liveBytes()));
            Map<String, Double> extra = osThreadsPerThread == 1 ? Map.of()
                    : Map.of("os_threads", (double) threads * osThreadsPerThread);
            return new Sample(Map.of(Metric.OPS_PER_S.name(), o.opsPerSecond()), o.memory(), extra);
        }
    }
}
