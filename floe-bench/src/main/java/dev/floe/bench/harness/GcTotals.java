package dev.floe.bench.harness;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * Collector time and count so far, as the GC MXBeans report them: {@code millis} and
 * {@code count} over the pause beans (all of G1's and Parallel's beans count pauses),
 * {@code cycleMillis} over ZGC's concurrent "Cycles" beans, -1 where the collector has none.
 * Suites take one before and one after a measured run and report the difference.
 */
public record GcTotals(long millis, long count, long cycleMillis) {

    public static GcTotals now() {
        long ms = 0, n = 0, cycles = -1;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().endsWith("Cycles")) { // ZGC's concurrent cycles, not pauses
                cycles = Math.max(0, cycles) + Math.max(0, gc.getCollectionTime());
                continue;
            }
            ms += Math.max(0, gc.getCollectionTime());
            n += Math.max(0, gc.getCollectionCount());
        }
        return new GcTotals(ms, n, cycles);
    }

    /** What was added since {@code before}. */
    public GcTotals minus(GcTotals before) {
        return new GcTotals(millis - before.millis, count - before.count,
                cycleMillis < 0 ? -1 : cycleMillis - before.cycleMillis);
    }

    /** Heap occupancy right after the most recent collection, summed over the heap pools. */
    public static long heapAfterLastGc() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() != MemoryType.HEAP) continue;
            MemoryUsage u = pool.getCollectionUsage();
            if (u != null) sum += u.getUsed();
        }
        return sum;
    }
}
