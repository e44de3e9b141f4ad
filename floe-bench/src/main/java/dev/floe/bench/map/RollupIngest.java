package dev.floe.bench.map;

import dev.floe.bench.harness.GcTotals;
import dev.floe.bench.harness.Json;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Sample;
import dev.floe.memory.FloeOutOfMemoryException;

import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code rollup} workload (the Oak paper's section 6, Figure 5): single-threaded ingestion of
 * pre-generated tuples into a Druid-style rollup index ({@link RollupIndex}), I²-Oak
 * ({@code floe-oak}) against I²-legacy ({@code cslm}), each in its own fresh JVM with the same RAM
 * budget. Reports the ingestion throughput (tuples/s) and the metadata overhead: the bytes the
 * index uses beyond its raw rows, {@code (used - raw) / raw}, where
 * <ul>
 *   <li>{@code raw} = rows x (serialized key bytes + serialized value bytes) (32 + 1,064 B by
 *       default);</li>
 *   <li>{@code used} = the Java heap the index added (used heap after {@code System.gc()} once it
 *       is built, minus the same before it was opened; the input stays reachable in both, so it
 *       cancels out) plus, for Oak, {@code OakMap.offHeapFootprint()} (its live key and value
 *       blocks, headers included). Both include the on-heap dictionaries, as the paper's figures
 *       include the auxiliary on-heap structures.</li>
 * </ul>
 *
 * <p>Run: generate the input ({@link RollupTuples}); warm up by ingesting its first
 * {@link #warmupTuples} tuples into throwaway indexes of the same implementation, at least twice
 * and for at least {@value #WARMUP_SECONDS} s (closed and collected before the measurement, so
 * the JIT has compiled the ingestion path, as in a long-running ingestion task); GC and read the
 * heap; open the index and time the ingestion of
 * every tuple; GC and read the heap again. A run that runs out of memory (the heap, or Oak's
 * off-heap budget) reports 0 tuples/s with {@code extra.out_of_memory = 1}.
 *
 * <p>Entry points: {@link #measure} runs inside a map-suite worker JVM (a {@code FRESH_JVM} cell);
 * {@link #main} runs one measurement in a JVM started by hand or by {@link RollupCompare} and
 * prints it as one JSON line after {@value #RESULT_PREFIX}.
 */
final class RollupIngest {

    /** Metric: metadata overhead, (used - raw) / raw; lower is better. Ratios floor it at 1%. */
    static final Metric METADATA_OVERHEAD = Metric.lowerIsBetter("metadata_overhead", 0.01);
    /** Prefix of {@link #main}'s answer line. */
    static final String RESULT_PREFIX = "ROLLUP-RESULT ";

    /** System property overriding the number of tuples of a suite run. */
    static final String TUPLES_PROPERTY = "floe.bench.map.rollupTuples";
    /** The quick size: 250,000 tuples (about 31,000 rows by default). */
    static final int QUICK_TUPLES = 250_000;
    /** The full size: the paper's largest data set, 7M tuples, if the input fits (see {@link #tuplesFor}). */
    static final int FULL_TUPLES = 7_000_000;
    /** Share of the smaller (Oak's) heap the pre-generated input may take. */
    static final double INPUT_HEAP_SHARE = 0.45;
    static final long SEED = 20_200_222L;

    private RollupIngest() {}

    /** What one run measured. */
    record Outcome(String impl, int tuples, long rows, double seconds, long rawBytes, long heapBytes,
                   long offheapBytes, boolean outOfMemory, long gcMillis, long gcCount, MemorySnapshot memory,
                   Map<String, Double> extra) {

        double tuplesPerSecond() {
            return outOfMemory || seconds <= 0 ? 0 : tuples / seconds;
        }

        long usedBytes() {
            return heapBytes + offheapBytes;
        }

        /** (used - raw) / raw; NaN without rows. */
        double overhead() {
            return rawBytes > 0 ? (double) (usedBytes() - rawBytes) / rawBytes : Double.NaN;
        }

        Sample toSample() {
            Map<String, Double> metrics = new LinkedHashMap<>();
            metrics.put(Metric.OPS_PER_S.name(), tuplesPerSecond());
            metrics.put(METADATA_OVERHEAD.name(), outOfMemory ? Double.NaN : overhead()); // NaN: null in the JSON
            Map<String, Double> x = new LinkedHashMap<>();
            x.put("tuples", (double) tuples);
            x.put("rows", (double) rows);
            x.put("rollup_ratio", rows > 0 ? (double) tuples / rows : 0);
            x.put("ingest_seconds", seconds);
            x.put("raw_bytes", (double) rawBytes);
            x.put("used_bytes", (double) usedBytes());
            x.put("heap_bytes", (double) heapBytes);
            x.put("offheap_footprint_bytes", (double) offheapBytes);
            if (rows > 0) {
                x.put("used_bytes_per_row", (double) usedBytes() / rows);
                x.put("heap_bytes_per_row", (double) heapBytes / rows);
            }
            x.put("gc_ms", (double) gcMillis);
            x.put("gc_count", (double) gcCount);
            x.put("out_of_memory", outOfMemory ? 1.0 : 0.0);
            x.putAll(extra);
            return new Sample(metrics, memory, x);
        }
    }

    /** Tuples per warm-up pass for an input of {@code n}: all of it, at most 200,000. */
    static int warmupTuples(int n) {
        return Math.min(n, 200_000);
    }

    /** Warm-up: at least this many passes ... */
    static final int WARMUP_MIN_PASSES = 2;
    /** ... and until this much time has passed (the JIT compiles Oak's deep paths late on a busy machine) ... */
    static final double WARMUP_SECONDS = 3.0;
    /** ... but at most this many passes. */
    static final int WARMUP_MAX_PASSES = 10;

    /**
     * Tuples of a suite run: {@link #QUICK_TUPLES} or {@link #FULL_TUPLES}, at most as many as
     * take {@link #INPUT_HEAP_SHARE} of Oak's heap share (a bound on the input's size; the input
     * gets heap of its own on top of the budget, {@link #inputHeapBytes}), or {@value #TUPLES_PROPERTY}.
     */
    static int tuplesFor(Mode mode, MapSizing z) {
        String p = System.getProperty(TUPLES_PROPERTY);
        if (p != null && !p.isBlank()) return Integer.parseInt(p.trim());
        int want = mode == Mode.QUICK ? QUICK_TUPLES : FULL_TUPLES;
        long cap = (long) (INPUT_HEAP_SHARE * z.splitHeap()) / RollupTuples.HEAP_BYTES_PER_TUPLE;
        return (int) Math.min(want, cap);
    }

    /** Heap the pre-generated input of a suite run takes, added to every implementation's heap. */
    static long inputHeapBytes(Mode mode, MapSizing z) {
        long bytes = (long) tuplesFor(mode, z) * RollupTuples.HEAP_BYTES_PER_TUPLE;
        return (bytes + (1L << 20) - 1) & -(1L << 20); // whole MiB, as -Xmx takes them
    }

    /**
     * The map suite's entry point, inside a fresh worker JVM of {@code impl} ({@code floe-oak} or
     * {@code cslm}) started with the suite's JVM options for it: the suite's RAM budget, all heap
     * for cslm, {@code z.splitHeap()} heap + {@code z.offheapBudget()} off-heap for floe-oak, and
     * for both the input's heap on top ({@link #inputHeapBytes}).
     */
    static Sample measure(String impl, Mode mode, MapSizing z) {
        RollupTuples input = RollupTuples.generate(RollupTuples.Spec.of(tuplesFor(mode, z), SEED));
        Outcome o = run(impl, input, RollupSchema.standard(), z.offheapBudget(), RollupKeyCodec.Prefix.PACKED,
                warmupTuples(input.size), WARMUP_SECONDS);
        return o.toSample();
    }

    /**
     * One measured ingestion of all of {@code input} into a new index of {@code impl}, after a
     * warm-up: passes of the first {@code warmup} tuples, each into a throwaway index (closed
     * right after), at least {@value #WARMUP_MIN_PASSES} and until {@code warmupSeconds} passed,
     * at most {@value #WARMUP_MAX_PASSES} ({@code warmup = 0}: none).
     */
    static Outcome run(String impl, RollupTuples input, RollupSchema schema, long offheapBudget,
                       RollupKeyCodec.Prefix prefix, int warmup, double warmupSeconds) {
        int passes = 0;
        long warmStart = System.nanoTime();
        while (warmup > 0 && passes < WARMUP_MAX_PASSES
                && (passes < WARMUP_MIN_PASSES || System.nanoTime() - warmStart < warmupSeconds * 1e9)) {
            try (RollupIndex w = RollupIndex.open(impl, schema, offheapBudget, prefix)) {
                for (int i = 0; i < warmup; i++) w.add(input, i);
            }
            passes++;
        }
        double warmSeconds = (System.nanoTime() - warmStart) / 1e9;
        long heapBefore = heapUsedAfterGc();
        GcTotals gcBefore = GcTotals.now();
        RollupIndex index = RollupIndex.open(impl, schema, offheapBudget, prefix);
        int n = input.size;
        boolean oom = false;
        long start = System.nanoTime(), end;
        try {
            ingest(index, input, n);
        } catch (OutOfMemoryError | FloeOutOfMemoryException e) {
            oom = true;
        } finally {
            end = System.nanoTime();
        }
        try {
            if (oom) {
                index.close();
                index = null;
                System.gc();
                System.err.println("rollup: " + impl + " ran out of memory after " + (end - start) / 1e9 + " s");
                return new Outcome(impl, n, 0, (end - start) / 1e9, 0, 0, 0, true, 0, 0,
                        MemorySnapshot.capture(0, 0), Map.of());
            }
            GcTotals gc = GcTotals.now().minus(gcBefore);
            long heapAfter = heapUsedAfterGc();
            long rows = index.rows();
            long offheap = index.offHeapFootprint();
            MemorySnapshot memory = index instanceof RollupOakIndex oak
                    ? MemorySnapshot.capture(oak.offheapCommittedBytes(), oak.offheapLiveBytes())
                    : MemorySnapshot.capture(0, 0);
            Map<String, Double> extra = new LinkedHashMap<>(index.extra());
            extra.put("key_bytes", (double) schema.keyBytes);
            extra.put("value_bytes", (double) schema.valueBytes);
            extra.put("granularity_ms", (double) schema.granularityMs);
            extra.put("input_heap_bytes", (double) input.heapBytes());
            extra.put("warmup_tuples", (double) warmup);
            extra.put("warmup_passes", (double) passes);
            extra.put("warmup_seconds", warmSeconds);
            extra.put("packed_prefix", prefix == RollupKeyCodec.Prefix.PACKED ? 1.0 : 0.0);
            Outcome o = new Outcome(impl, n, rows, (end - start) / 1e9, rows * schema.rawRowBytes(),
                    heapAfter - heapBefore, offheap, false, gc.millis(), gc.count(), memory, extra);
            Reference.reachabilityFence(input); // reachable in both heap readings
            return o;
        } finally {
            if (index != null) index.close();
        }
    }

    /** The timed loop. */
    private static void ingest(RollupIndex index, RollupTuples input, int n) {
        for (int i = 0; i < n; i++) index.add(input, i);
    }

    /** Used heap after full collections, repeated until it stops shrinking (at most 5). */
    static long heapUsedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int k = 0; k < 5; k++) {
            System.gc();
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (now >= used - (used >> 10)) return Math.min(now, used);
            used = now;
        }
        return used;
    }

    /**
     * One measurement in this JVM, printed as one JSON line ({@value #RESULT_PREFIX} + the
     * sample). Arguments {@code name=value}: {@code impl} (floe-oak | cslm, required),
     * {@code tuples} (250000), {@code seed}, {@code offheapMb} (Oak's off-heap budget, 1024),
     * {@code granularityMs} (1000), {@code sketchBytes} (1024), {@code eventsPerSecond} (50000),
     * {@code profile} (rollup | wide), {@code prefix} (Oak's order prefix: timestamp | packed),
     * {@code warmup} (tuples per warm-up pass; default {@link #warmupTuples}; 0: none),
     * {@code warmupSeconds} (3). Run with
     * {@code --enable-native-access=ALL-UNNAMED} and the heap of the RAM budget's split.
     */
    public static void main(String[] args) {
        Map<String, String> a = parse(args);
        String impl = a.get("impl");
        if (impl == null) throw new IllegalArgumentException("impl=floe-oak|cslm is required");
        int tuples = Integer.parseInt(a.getOrDefault("tuples", String.valueOf(QUICK_TUPLES)));
        long seed = Long.parseLong(a.getOrDefault("seed", String.valueOf(SEED)));
        long offheap = Long.parseLong(a.getOrDefault("offheapMb", "1024")) << 20;
        long granularity = Long.parseLong(a.getOrDefault("granularityMs", String.valueOf(RollupSchema.DEFAULT_GRANULARITY_MS)));
        int sketch = Integer.parseInt(a.getOrDefault("sketchBytes", String.valueOf(RollupSketch.DRUID_BYTES)));
        double eps = Double.parseDouble(a.getOrDefault("eventsPerSecond", String.valueOf(RollupTuples.DEFAULT_EVENTS_PER_SECOND)));
        RollupTuples.Profile profile = RollupTuples.Profile.byName(a.getOrDefault("profile", "rollup"));
        RollupTuples input = RollupTuples.generate(new RollupTuples.Spec(tuples, seed, eps, RollupTuples.DEFAULT_JITTER_MS, profile));
        int warmup = Integer.parseInt(a.getOrDefault("warmup", String.valueOf(warmupTuples(tuples))));
        double warmupSeconds = Double.parseDouble(a.getOrDefault("warmupSeconds", String.valueOf(WARMUP_SECONDS)));
        RollupKeyCodec.Prefix prefix = RollupKeyCodec.Prefix.valueOf(
                a.getOrDefault("prefix", "timestamp").trim().toUpperCase(java.util.Locale.ROOT));
        Outcome o = run(impl, input, new RollupSchema(granularity, sketch), offheap, prefix, warmup, warmupSeconds);
        Map<String, Object> m = new LinkedHashMap<>(o.toSample().toJson());
        m.put("impl", impl);
        System.out.println(RESULT_PREFIX + Json.compact(m));
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> a = new LinkedHashMap<>();
        for (String s : args) {
            int eq = s.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("arguments are name=value: " + s);
            a.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return a;
    }
}
