package dev.floe.bench.map;

import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.memory.SizeClasses;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sizes and memory budgets of one mode.
 *
 * <p>Paper (Oak, PPoPP 2020, section 5): 100-byte keys and 1 KB values, keys uniform over a range,
 * every experiment starts by ingesting half of the range with putIfAbsent from one thread, then
 * runs the workload for 30 s; all maps get the same RAM budget, Oak and CSLM-OffHeap split it
 * between the heap and an off-heap pool, CSLM gets it all as heap. Here:
 * <ul>
 *   <li>{@code --quick}: 25,000 entries over 50,000 keys (~27 MB of raw data, ~55 MB if a put
 *       workload inserts the whole range), scans of 1,000 entries, a 256 MiB RAM budget per worker
 *       JVM (cslm {@code -Xmx256m}; the off-heap implementations 32 MiB of heap + 224 MiB
 *       off-heap). With entries so large that Oak's blocks for 25,000 of them would take more than
 *       40% of the off-heap budget, fewer entries (as many as fit that share, as in full mode),
 *       over twice as many keys, with scans of at most half the fill.</li>
 *   <li>{@code --full}: the RAM budget is 60% of this machine's memory shared by the worker JVMs
 *       alive at once (one per implementation, plus the fresh JVM of {@code ingest}), at most
 *       32 GiB each; the off-heap implementations get an eighth of it as heap, the rest off-heap;
 *       the fill is the paper's 10M entries over 20M keys, but at most as many as fill 40% of the
 *       off-heap budget with Oak's blocks (so that a put workload inserting the whole range still
 *       fits); scans of 10,000 entries.</li>
 * </ul>
 * {@code --heap} and {@code --offheap} ({@link JvmConfig}) replace the split (the budget is
 * then their sum, the fill capped by the off-heap budget as above). The same budget caps {@code ingest}, which fills an empty map from one thread until the memory
 * runs out (or {@link #ingestSeconds} pass). {@code floe-oak-noreclaim} leaks every removed entry
 * by design: it gets the off-heap budget plus {@link #noReclaimExtraBytes} and a fresh map for
 * every run.
 *
 * @param keyBytes            bytes per key (100, or {@code floe.bench.map.keyBytes})
 * @param valueBytes          bytes per value (1000, or {@code floe.bench.map.valueBytes})
 * @param entries             the fill: entries put before each measured workload
 * @param range               keys are drawn uniformly from {@code [0, range)}
 * @param scanLength          entries per scan
 * @param budgetBytes         the RAM budget of one worker JVM ({@code -Xmx} of cslm)
 * @param splitHeap           {@code -Xmx} of the off-heap implementations
 * @param offheapBudget       their off-heap budget (Floe budget, or MapDB's direct-memory cap)
 * @param noReclaimExtraBytes added to the off-heap budget of {@code floe-oak-noreclaim}
 * @param ingestSeconds       time limit of one ingest run
 * @param scale               the fill as a share of the paper's 10M entries
 */
record MapSizing(int keyBytes, int valueBytes, int entries, int range, int scanLength, long budgetBytes,
                 long splitHeap, long offheapBudget, long noReclaimExtraBytes, double ingestSeconds, double scale) {

    /** System property (and, upper-cased with dots as underscores, environment variable) for the key size. */
    static final String KEY_BYTES_PROPERTY = "floe.bench.map.keyBytes";
    /** System property (and environment variable {@code FLOE_BENCH_MAP_VALUEBYTES}) for the value size. */
    static final String VALUE_BYTES_PROPERTY = "floe.bench.map.valueBytes";
    /**
     * Overrides of the mode's sizes, for short test runs (and experiments): the key range (the fill
     * is half of it, scans at most a quarter of it) and the ingest time limit in seconds.
     */
    static final String RANGE_PROPERTY = "floe.bench.map.range";
    static final String INGEST_SECONDS_PROPERTY = "floe.bench.map.ingestSeconds";
    /** The properties a worker JVM inherits from the parent (see {@link #systemProperties}). */
    private static final List<String> PASSED_ON = List.of(RANGE_PROPERTY, INGEST_SECONDS_PROPERTY, RollupIngest.TUPLES_PROPERTY);
    static final int DEFAULT_KEY_BYTES = 100;
    static final int DEFAULT_VALUE_BYTES = 1000;
    /** Entry sizes the suite accepts: keys carry an 8-byte id; 1 MiB bounds a fill to a few hundred entries at least. */
    static final int MIN_ENTRY_BYTES = 8, MAX_ENTRY_BYTES = 1 << 20;
    /** The quick mode's fill (over twice as many keys), when the entries are small enough for it. */
    private static final int QUICK_ENTRIES = 25_000;

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final int PAPER_ENTRIES = 10_000_000;
    private static final long MAX_FULL_BUDGET = 32 * GIB;
    private static final double MACHINE_SHARE = 0.6;
    /** Share of the off-heap budget the fill may take (a put workload can double it). */
    private static final double FILL_SHARE = 0.4;
    /** Oak's value slices carry 16 bytes of lock word and forward pointer. */
    static final int OAK_VALUE_HEADER = 16;
    /** Nova's slice header. */
    static final int NOVA_HEADER = 8;

    /** The sizes of {@code mode} for one worker JVM (tests, config without a worker count). */
    static MapSizing of(Mode mode) {
        return of(mode, 1);
    }

    /**
     * The sizes of {@code mode} when {@code liveWorkers} shared worker JVMs are alive at once (the
     * fresh ingest JVM comes on top of them).
     */
    static MapSizing of(Mode mode, int liveWorkers) {
        return of(mode, liveWorkers, JvmConfig.DEFAULT);
    }

    /**
     * The sizes of {@code mode} under the budgets of {@code jvm}: the off-heap implementations get
     * its heap and off-heap budget, cslm their sum as heap, and the fill is capped by the off-heap
     * budget as in the mode's own sizing.
     */
    static MapSizing of(Mode mode, int liveWorkers, JvmConfig jvm) {
        MapSizing z = defaults(mode, liveWorkers, jvm);
        String range = System.getProperty(RANGE_PROPERTY);
        if (range != null) {
            int r;
            try {
                r = Integer.parseInt(range.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(RANGE_PROPERTY + " is not a whole number: '" + range + "'", e);
            }
            if (r < 4) throw new IllegalArgumentException(RANGE_PROPERTY + " must be at least 4: " + r);
            z = z.withRange(r);
        }
        String ingest = System.getProperty(INGEST_SECONDS_PROPERTY);
        if (ingest != null) {
            double seconds;
            try {
                seconds = Double.parseDouble(ingest.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(INGEST_SECONDS_PROPERTY + " is not a number of seconds: '" + ingest + "'", e);
            }
            z = new MapSizing(z.keyBytes, z.valueBytes, z.entries, z.range, z.scanLength, z.budgetBytes, z.splitHeap,
                    z.offheapBudget, z.noReclaimExtraBytes, seconds, z.scale);
        }
        return z;
    }

    /** These sizes with keys drawn from {@code [0, r)}: a fill of half of them, scans of at most a quarter. */
    MapSizing withRange(int r) {
        return new MapSizing(keyBytes, valueBytes, r / 2, r, Math.max(1, Math.min(scanLength, r / 4)), budgetBytes,
                splitHeap, offheapBudget, noReclaimExtraBytes, ingestSeconds, (double) (r / 2) / PAPER_ENTRIES);
    }

    /**
     * The sizes of a small map on which two threads collide all the time ({@link #CONTENDED_KEYS}
     * keys, an off-heap budget of {@link #CONTENDED_OFFHEAP_BYTES}), for the JIT warm-up's contended
     * rounds: it lives next to the worker's own map, so it must not take (or pre-touch) a budget of
     * its size.
     */
    MapSizing contended() {
        MapSizing z = withRange(CONTENDED_KEYS);
        return new MapSizing(z.keyBytes, z.valueBytes, z.entries, z.range, z.scanLength, z.budgetBytes, z.splitHeap,
                Math.min(offheapBudget, CONTENDED_OFFHEAP_BYTES), z.noReclaimExtraBytes, z.ingestSeconds, z.scale);
    }

    /** Keys of the {@link #contended} map. */
    static final int CONTENDED_KEYS = 32;
    /** Off-heap budget of the {@link #contended} map (it holds {@link #CONTENDED_KEYS} entries at most). */
    static final long CONTENDED_OFFHEAP_BYTES = 4 * MIB;

    /** {@code -D} options that give a worker JVM the same sizes as this one. */
    List<String> systemProperties() {
        List<String> args = new ArrayList<>();
        args.add("-D" + KEY_BYTES_PROPERTY + "=" + keyBytes);
        args.add("-D" + VALUE_BYTES_PROPERTY + "=" + valueBytes);
        for (String p : PASSED_ON) {
            String v = System.getProperty(p);
            if (v != null) args.add("-D" + p + "=" + v);
        }
        return args;
    }

    private static MapSizing defaults(Mode mode, int liveWorkers, JvmConfig jvm) {
        int k = bytesSetting(KEY_BYTES_PROPERTY, DEFAULT_KEY_BYTES);
        int v = bytesSetting(VALUE_BYTES_PROPERTY, DEFAULT_VALUE_BYTES);
        if (mode == Mode.QUICK) {
            long heap = jvm.heapOr(32 * MIB);
            long offheap = jvm.offheapOr(224 * MIB);
            // 25,000 entries, or fewer when large entries (--value-bytes) would not fit as in full mode
            int entries = Math.max(2, (int) Math.min(QUICK_ENTRIES, (long) (FILL_SHARE * offheap / oakEntryBlockBytes(k, v))));
            return new MapSizing(k, v, entries, 2 * entries, Math.min(1_000, Math.max(1, entries / 2)), heap + offheap,
                    heap, offheap, GIB, 30, (double) entries / PAPER_ENTRIES);
        }
        long machine = Machine.physicalMemoryBytes();
        long budget = machine <= 0 ? 4 * GIB
                : Math.min(MAX_FULL_BUDGET, (long) (MACHINE_SHARE * machine / (Math.max(1, liveWorkers) + 1)));
        budget = Math.max(256 * MIB, budget / MIB * MIB);
        long heap = jvm.heapOr(Math.max(32 * MIB, budget / 8 / MIB * MIB));
        long offheap = jvm.offheapOr(budget - heap);
        budget = heap + offheap;
        int entries = Math.max(2, (int) Math.min(PAPER_ENTRIES, (long) (FILL_SHARE * offheap / oakEntryBlockBytes(k, v))));
        long extra = Math.max(GIB, machine / 4);
        return new MapSizing(k, v, entries, 2 * entries, 10_000, budget, heap, offheap, extra, 600,
                (double) entries / PAPER_ENTRIES);
    }

    /** Raw bytes of one entry (key + value). */
    long rawEntryBytes() {
        return (long) keyBytes + valueBytes;
    }

    /** Allocator bytes Oak needs per entry: a key slice and a value slice, each in its size class (a page run out of line). */
    static long oakEntryBlockBytes(int keyBytes, int valueBytes) {
        return block(keyBytes + NOVA_HEADER) + block(valueBytes + OAK_VALUE_HEADER + NOVA_HEADER);
    }

    private static long block(long size) {
        return size <= SizeClasses.MAX_SMALL ? SizeClasses.blockSize(SizeClasses.classOf(size)) : (size + 4095) / 4096 * 4096;
    }

    /** The JSON description of these sizes (part of the suite's config). */
    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("key_bytes", keyBytes);
        m.put("value_bytes", valueBytes);
        m.put("range", range);
        m.put("fill", 0.5);
        m.put("entries", entries);
        m.put("scan_entries", scanLength);
        m.put("ram_budget_bytes", budgetBytes);
        m.put("cslm_heap_bytes", budgetBytes);
        m.put("offheap_impl_heap_bytes", splitHeap);
        m.put("offheap_impl_offheap_budget_bytes", offheapBudget);
        m.put("noreclaim_offheap_budget_bytes", offheapBudget + noReclaimExtraBytes);
        m.put("oak_entry_block_bytes", oakEntryBlockBytes(keyBytes, valueBytes));
        m.put("ingest_time_limit_s", ingestSeconds);
        m.put("paper_scale", scale);
        return m;
    }

    /** A size from the system property, else the environment, else the default. */
    private static int bytesSetting(String property, int fallback) {
        String s = System.getProperty(property);
        if (s == null) s = System.getenv(property.toUpperCase(Locale.ROOT).replace('.', '_'));
        if (s == null || s.isBlank()) return fallback;
        int n;
        try {
            n = Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " is not a number: " + s);
        }
        return checkEntryBytes(property, n);
    }

    /** {@code bytes} if the suite accepts entries of that size, else an exception naming {@code what}. */
    static int checkEntryBytes(String what, int bytes) {
        if (bytes < MIN_ENTRY_BYTES || bytes > MAX_ENTRY_BYTES) {
            throw new IllegalArgumentException(what + " must be in [" + MIN_ENTRY_BYTES + ", " + MAX_ENTRY_BYTES + "]: " + bytes);
        }
        return bytes;
    }
}
