package dev.floe.bench.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.ReleaseMethod;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * The cost of the two release methods (paper, section 3.2), side by side in one JVM: on a fresh
 * allocator per round, allocate {@link #BYTES} in 1 KiB blocks and touch them, then time
 * <em>release</em> (free every block and trim: every superblock empties and is released) and
 * <em>reuse</em> (allocate and touch the same amount again: MADVISE faults zero pages in,
 * SHARED_FRAME first remaps each superblock private). Rounds alternate the methods; medians.
 */
final class ReleaseMethodCost {
    static final long BYTES = 32L << 20;
    private static final int BLOCK = 1024;
    private static final int ROUNDS = 5;

    /** Median milliseconds of one phase. */
    record Cost(double releaseMs, double reuseMs, long releases) {}

    static Map<ReleaseMethod, Cost> measure() {
        int n = (int) (BYTES / BLOCK);
        long[] blocks = new long[n];
        Map<ReleaseMethod, double[]> release = new EnumMap<>(ReleaseMethod.class);
        Map<ReleaseMethod, double[]> reuse = new EnumMap<>(ReleaseMethod.class);
        Map<ReleaseMethod, Long> releases = new EnumMap<>(ReleaseMethod.class);
        for (ReleaseMethod m : ReleaseMethod.values()) {
            release.put(m, new double[ROUNDS]);
            reuse.put(m, new double[ROUNDS]);
        }
        for (int round = 0; round < ROUNDS; round++) {
            for (ReleaseMethod m : ReleaseMethod.values()) {
                try (FloeAllocator a = FloeAllocator.builder().name("release-cost").jmx(false)
                        .releaseMethod(m).build()) {
                    fill(a, blocks);
                    long t0 = System.nanoTime();
                    for (long b : blocks) a.free(b);
                    a.trim();
                    long t1 = System.nanoTime();
                    fill(a, blocks);
                    long t2 = System.nanoTime();
                    releases.put(m, a.stats().superblockReleases());
                    release.get(m)[round] = (t1 - t0) / 1e6;
                    reuse.get(m)[round] = (t2 - t1) / 1e6;
                }
            }
        }
        Map<ReleaseMethod, Cost> out = new EnumMap<>(ReleaseMethod.class);
        for (ReleaseMethod m : ReleaseMethod.values()) {
            out.put(m, new Cost(median(release.get(m)), median(reuse.get(m)), releases.get(m)));
        }
        return out;
    }

    private static void fill(FloeAllocator a, long[] blocks) {
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = a.allocate(BLOCK);
            a.region().setLongPlain(blocks[i], i);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
