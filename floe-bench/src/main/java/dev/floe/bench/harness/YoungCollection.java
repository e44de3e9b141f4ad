package dev.floe.bench.harness;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * Settles a freshly built data structure on the Java heap the way a program that has run for a
 * while has it: copied by a young collection. The {@code map} and {@code somar} suites run it
 * after every fill, for every implementation alike.
 *
 * <p>Why: objects stay where they were allocated until a collection moves them. A skip list
 * filled in random key order has its nodes in allocation order, so a scan jumps across the heap
 * on every step; a young collection copies live objects by tracing them, which puts nodes that
 * point at each other next to each other, and a full collection ({@code System.gc()}) compacts
 * them in place, keeping the allocation order. A stand-alone fill of 25,000 entries (100 B keys,
 * 1000 B values) scanned at 21 thousand 1,000-entry scans per second before a young collection,
 * 63 thousand after one, and 24 thousand after a full collection instead. In the map suite the
 * state a run met was chance (whether the collector ran between the fill and the run): three
 * invocations measured {@code ConcurrentSkipListMap}'s one-thread ascending scans at 16, 35 and 18
 * thousand per second; with this step, at 48, 26 and 48 thousand. It removes the slowest state
 * (the whole fill still in allocation order), not all variation: young collections during the
 * fill copy the part filled so far, at points that depend on the heap's history.
 *
 * <p>How: allocate short-lived 64 KiB arrays until the young collector's count grows. The
 * collector's bean counts a collection when it ends, so {@link #run()} returns after it. Where the
 * collector has no young generation (Epsilon, non-generational Shenandoah) nothing is done.
 */
public final class YoungCollection {

    private static final int CHUNK = 64 * 1024;
    /** A few recent chunks stay reachable, so the JIT cannot prove the allocations dead and drop them. */
    private static final Object[] RECENT = new Object[16];

    private YoungCollection() {}

    /**
     * Allocates garbage until the young collector has run once more (at most twice the maximum
     * heap of allocation). Returns whether it ran; false where there is no young collector.
     */
    public static boolean run() {
        GarbageCollectorMXBean young = youngCollector();
        if (young == null) return false;
        long before = young.getCollectionCount();
        long limit = 2 * Runtime.getRuntime().maxMemory();
        int i = 0;
        for (long allocated = 0; young.getCollectionCount() == before && allocated < limit; allocated += CHUNK) {
            RECENT[i++ & (RECENT.length - 1)] = new byte[CHUNK];
        }
        Arrays.fill(RECENT, null);
        return young.getCollectionCount() != before;
    }

    /**
     * The bean of the collector that collects the young generation: G1's "G1 Young Generation",
     * Parallel's "PS Scavenge", Serial's "Copy", generational ZGC's "ZGC Minor Cycles"; null if none.
     */
    static GarbageCollectorMXBean youngCollector() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String n = gc.getName();
            if (n.contains("Young") || n.contains("Scavenge") || n.equals("Copy") || n.equals("ZGC Minor Cycles")) return gc;
        }
        return null;
    }
}
