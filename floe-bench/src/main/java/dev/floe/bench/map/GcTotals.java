package dev.floe.bench.map;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/** Collector time and count so far (G1's pause beans), and the heap after the last collection. */
public record GcTotals(long millis, long count) {

    public static GcTotals now() {
        long ms = 0, n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().endsWith("Cycles")) continue; // ZGC's concurrent-cycle beans, not pauses (G1's beans all count pauses)
            ms += Math.max(0, gc.getCollectionTime());
            n += Math.max(0, gc.getCollectionCount());
        }
        return new GcTotals(ms, n);
    }

    public GcTotals minus(GcTotals o) {
        return new GcTotals(millis - o.millis, count - o.count);
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
