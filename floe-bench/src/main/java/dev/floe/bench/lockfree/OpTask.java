package dev.floe.bench.lockfree;

import dev.floe.bench.harness.StopSignal;
import dev.floe.bench.harness.TimedTask;
import dev.floe.lockfree.LockFreeLongMap;

import java.util.SplittableRandom;

/**
 * One thread of a timed lockfree workload: uniform keys in {@code [0, range)}; per operation a
 * contains with probability {@code searchPercent}%, else an insert or a remove with equal
 * probability. The stop signal is polled every 32 operations.
 */
final class OpTask implements TimedTask {
    private final LockFreeLongMap map;
    private final long range;
    private final int searchPercent;
    private final SplittableRandom random;
    /** Successful operations of the last run: consumes every result, so none is optimised away. */
    long successes;

    OpTask(LockFreeLongMap map, long range, int searchPercent, long seed) {
        this.map = map;
        this.range = range;
        this.searchPercent = searchPercent;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void setUp() {
        // nothing per thread: the structure is shared and already filled (Structures)
    }

    @Override
    public long run(StopSignal stop) {
        long ops = 0;
        long sink = 0;
        while (!stop.isRaised()) {
            for (int i = 0; i < 32; i++) {
                long key = random.nextLong(range);
                int r = random.nextInt(200);
                if (r < 2 * searchPercent) {
                    if (map.contains(key)) sink++;
                } else if ((r & 1) == 0) {
                    if (map.insert(key, key)) sink++;
                } else {
                    if (map.remove(key)) sink++;
                }
            }
            ops += 32;
        }
        successes = sink;
        return ops;
    }

    @Override
    public void tearDown() {
        // the structure outlives the run: it is reused by the workload's next runs
    }
}
