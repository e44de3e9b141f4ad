package dev.floe.bench.somar;

import dev.floe.bench.harness.StopSignal;
import dev.floe.bench.harness.TimedTask;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

/**
 * One thread of a somar workload: until stopped, draws a key uniformly from the range and an
 * operation from the mix (put / delete / get), and applies it to the map.
 */
final class MapTask implements TimedTask {

    private final BenchMap map;
    private final Probe probe;
    private final Workload.Mix mix;
    private final int range;
    private final SplittableRandom random;
    /** Heap bytes this thread allocated during {@link #run} (-1 if the JVM cannot tell). */
    private long allocatedBytes = -1;

    MapTask(BenchMap map, Workload.Mix mix, int range, long seed) {
        this.map = map;
        this.probe = map.newProbe();
        this.mix = mix;
        this.range = range;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void setUp() {
        // the map is shared and already filled
    }

    @Override
    public long run(StopSignal stop) {
        int put = mix.putPercent;
        int putOrDelete = put + mix.deletePercent;
        long ops = 0;
        long allocatedBefore = allocatedByThisThread();
        while (!stop.isRaised()) {
            int dice = random.nextInt(100);
            probe.key(random.nextInt(range));
            if (dice < put) map.put(probe);
            else if (dice < putOrDelete) map.delete(probe);
            else map.get(probe);
            ops++;
        }
        long allocatedAfter = allocatedByThisThread();
        allocatedBytes = allocatedBefore < 0 || allocatedAfter < 0 ? -1 : allocatedAfter - allocatedBefore;
        return ops;
    }

    /** Heap bytes allocated during the last {@link #run}, or -1 if unknown. */
    long allocatedBytes() {
        return allocatedBytes;
    }

    private static long allocatedByThisThread() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                ? t.getCurrentThreadAllocatedBytes() : -1;
    }

    @Override
    public void tearDown() {
        // nothing per thread
    }

    /** What gets copied out (keeps the copies alive; tests). */
    long sink() {
        return probe.sink;
    }
}
