package dev.floe.bench.map;

import dev.floe.bench.harness.StopSignal;
import dev.floe.bench.harness.TimedTask;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

/**
 * One thread of a timed map workload: until stopped, draws a key uniformly from the range (and,
 * for mixes, an operation) and applies it. An operation is one map call; for scans, one scan of
 * up to {@code scanLength} entries from a random key (ascending scans start in the lower part of
 * the range, descending ones in the upper part, so that every scan finds its entries).
 */
final class OpTask implements TimedTask {

    private final MapUnderTest map;
    private final MapWorkload workload;
    private final Probe probe;
    private final int range;
    private final int scanLength;
    private final SplittableRandom random;
    private long allocatedBytes = -1;
    private long scanned;

    OpTask(MapUnderTest map, MapWorkload workload, MapSizing z, long seed) {
        this.map = map;
        this.workload = workload;
        this.probe = new Probe(z.keyBytes(), z.valueBytes());
        this.range = z.range();
        this.scanLength = z.scanLength();
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void setUp() {
        // the map is shared and already filled
    }

    @Override
    public long run(StopSignal stop) {
        long before = allocatedByThisThread();
        long ops = switch (workload) {
            case PUT -> put(stop);
            case PUT_IF_ABSENT -> putIfAbsent(stop);
            case ZC_GET -> zcGet(stop);
            case GET_COPY -> getCopy(stop);
            case COMPUTE -> compute(stop);
            case MIX95 -> mix(stop, 5, 0);
            case PUT_DELETE -> mix(stop, 50, 50);
            case RW -> mix(stop, 25, 25);
            case SCAN_ASC -> scan(stop, false);
            case SCAN_DESC -> scan(stop, true);
            case INGEST, ROLLUP -> throw new IllegalStateException(workload.label() + " is not a timed mix");
        };
        long after = allocatedByThisThread();
        allocatedBytes = before < 0 || after < 0 ? -1 : after - before;
        return ops;
    }

    private long put(StopSignal stop) {
        long ops = 0;
        while (!stop.isRaised()) {
            map.put(probe.key(random.nextInt(range)));
            ops++;
        }
        return ops;
    }

    private long putIfAbsent(StopSignal stop) {
        long ops = 0;
        while (!stop.isRaised()) {
            map.putIfAbsent(probe.key(random.nextInt(range)));
            ops++;
        }
        return ops;
    }

    private long zcGet(StopSignal stop) {
        long ops = 0;
        while (!stop.isRaised()) {
            map.zcGet(probe.key(random.nextInt(range)));
            ops++;
        }
        return ops;
    }

    private long getCopy(StopSignal stop) {
        long ops = 0;
        while (!stop.isRaised()) {
            map.getCopy(probe.key(random.nextInt(range)));
            ops++;
        }
        return ops;
    }

    private long compute(StopSignal stop) {
        long ops = 0;
        while (!stop.isRaised()) {
            map.compute(probe.key(random.nextInt(range)));
            ops++;
        }
        return ops;
    }

    /** {@code putPercent}% put, {@code removePercent}% remove, the rest zc-get. */
    private long mix(StopSignal stop, int putPercent, int removePercent) {
        int putOrRemove = putPercent + removePercent;
        long ops = 0;
        while (!stop.isRaised()) {
            int dice = random.nextInt(100);
            probe.key(random.nextInt(range));
            if (dice < putPercent) map.put(probe);
            else if (dice < putOrRemove) map.remove(probe);
            else map.zcGet(probe);
            ops++;
        }
        return ops;
    }

    private long scan(StopSignal stop, boolean descending) {
        int span = Math.min(range, 2 * scanLength);
        int starts = Math.max(1, range - span);
        int offset = descending ? range - starts : 0;
        long ops = 0;
        long entries = 0;
        while (!stop.isRaised()) {
            entries += map.scan(probe.key(offset + random.nextInt(starts)), scanLength, descending);
            ops++;
        }
        scanned = entries;
        return ops;
    }

    /** Heap bytes this thread allocated during the last {@link #run}, or -1 if unknown. */
    long allocatedBytes() {
        return allocatedBytes;
    }

    /** Entries the last run's scans visited. */
    long scannedEntries() {
        return scanned;
    }

    /** What reads consumed (keeps them alive). */
    long sink() {
        return probe.sink;
    }

    private static long allocatedByThisThread() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                ? t.getCurrentThreadAllocatedBytes() : -1;
    }

    @Override
    public void tearDown() {
        // nothing per thread
    }
}
