package dev.floe.bench.alloc;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Trial;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code release} workload: does the memory go back to the OS? On one thread, in a JVM of its
 * own (the suite asks for a fresh JVM per run), allocate {@code bytes} in blocks of 1–4 KiB and
 * write each, then free them all; read VmRSS before, at the peak and after.
 *
 * <p>Everything the measurement itself needs (the size list, the handle array, the allocator
 * object) exists before {@code rss_before} is read. After freeing, {@code floe-alloc} gets
 * {@link OffHeapAllocator#trim()}, which flushes its caches so that empty superblocks are released
 * (the others have no such call: malloc returns the top of its heap by itself, Netty frees empty
 * chunks itself). The warm-up setting does not apply: this is one cold pass, as an application
 * that builds and drops a large structure once.
 *
 * <p>Reported: {@code ops_per_s} = (allocations + frees) per second over the allocate and free
 * phases; {@code rss_bytes} = {@code rss_after - rss_before}, the memory the process kept; in
 * {@code extra}, {@code rss_before}, {@code rss_peak}, {@code rss_after}, {@code rss_after_vs_limit}
 * (this run's {@code rss_after} over the goal's limit, which the goal reads), {@code ops_per_s},
 * {@code blocks} and {@code bytes}; the {@code memory} snapshot is the one taken after freeing.
 */
final class ReleaseWorkload implements AllocWorkload {

    /** Smallest block. */
    static final int MIN_BLOCK = 1024;
    /** Largest block. */
    static final int MAX_BLOCK = 4096;
    /** Bytes allocated in quick mode. */
    static final long QUICK_BYTES = 256L << 20;
    /** Bytes allocated in full mode. */
    static final long FULL_BYTES = 2L << 30;

    private static final long SEED = 0x5eed_2e1eL;

    /** The bytes allocated in a mode. */
    static long bytes(Mode mode) {
        return mode == Mode.FULL ? FULL_BYTES : QUICK_BYTES;
    }

    @Override
    public Sample measure(AllocImpl impl, Trial trial) {
        int[] sizes = blockSizes(bytes(trial.mode()));
        long[] blocks = new long[sizes.length];
        try (OffHeapAllocator a = impl.open(sizes.length)) {
            long rssBefore = MemorySnapshot.currentRss();
            long t0 = System.nanoTime();
            for (int i = 0; i < sizes.length; i++) {
                long block = a.alloc(i, sizes[i]);
                a.write(block, i);
                blocks[i] = block;
            }
            long t1 = System.nanoTime();
            long rssPeak = MemorySnapshot.currentRss();
            long t2 = System.nanoTime();
            for (long block : blocks) a.free(block);
            a.trim();
            long t3 = System.nanoTime();
            MemorySnapshot after = MemorySnapshot.capture(a.committedBytes(), a.liveBytes());
            double opsPerSecond = 2.0 * sizes.length * 1e9 / ((t1 - t0) + (t3 - t2));
            Map<String, Double> extra = new LinkedHashMap<>();
            extra.put("rss_before", (double) rssBefore);
            extra.put("rss_peak", (double) rssPeak);
            extra.put("rss_after", (double) after.rssBytes());
            extra.put(AllocSuite.RELEASE_SHARE, AllocSuite.releaseShare(rssBefore, rssPeak, after.rssBytes()));
            extra.put("ops_per_s", opsPerSecond);
            extra.put("blocks", (double) sizes.length);
            extra.put("bytes", (double) Arrays.stream(sizes).asLongStream().sum());
            return new Sample(Map.of(Metric.OPS_PER_S.name(), opsPerSecond,
                    AllocSuite.RETAINED_RSS.name(), (double) (after.rssBytes() - rssBefore)), after, extra);
        }
    }

    /** Uniform sizes in [{@link #MIN_BLOCK}, {@link #MAX_BLOCK}] until they add up to {@code total}. */
    static int[] blockSizes(long total) {
        SplittableRandom random = new SplittableRandom(SEED);
        int[] sizes = new int[(int) (total / MIN_BLOCK) + 1];
        long sum = 0;
        int n = 0;
        while (sum < total) {
            sizes[n] = random.nextInt(MIN_BLOCK, MAX_BLOCK + 1);
            sum += sizes[n++];
        }
        return Arrays.copyOf(sizes, n);
    }
}
