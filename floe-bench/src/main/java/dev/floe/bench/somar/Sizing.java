package dev.floe.bench.somar;

import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.memory.SizeClasses;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sizes and memory budgets of one mode.
 *
 * <p>Paper (section 4.1): the LL-map starts with ~65K entries of 512-byte keys and 1 KiB values,
 * keys drawn from ~130K; the CSLM starts with 10M entries of 128-byte keys and 1 KiB values, keys
 * drawn from 20M, under a 14 GB RAM budget that off-heap solutions split 4 GB on-heap / 10 GB
 * off-heap. Here:
 * <ul>
 *   <li>{@code --full}: the LL-map exactly as in the paper (65,536 / 131,072); the budget as in the
 *       paper, scaled down proportionally when the budgets of the worker JVMs alive at once (one
 *       per implementation run, 14 GiB each) would exceed 60% of this machine's memory
 *       (same 4:10 split); the skiplist as in the paper times the same scale, but at most as many
 *       entries as fill 85% of the off-heap budget with SOMAR value blocks: a 1 KiB value plus
 *       its 8-byte slice header takes a 1280-byte size-class block, so the paper's 10M values
 *       (12 GiB of blocks) would not fit its 10 GB off-heap budget; that caps it at ~7.1M.</li>
 *   <li>{@code --quick}: the LL-map at 2,048 entries / 4,096 keys (a list costs O(n) per
 *       operation); the skiplist at 300,000 entries / 600,000 keys (~350 MB of raw data) under a
 *       1 GiB budget: gc-* get {@code -Xmx1g}, the off-heap implementations 384 MiB of heap plus a
 *       640 MiB off-heap budget. Raw data is ~1/3 of the budget rather than the paper's ~70%, so
 *       that no collector runs out of memory in the main job.</li>
 * </ul>
 * {@code --heap} and {@code --offheap} ({@link JvmConfig}) replace the split: the budget is then
 * their sum.
 *
 * @param heapBytes     {@code -Xmx} of the gc-* workers (the whole budget)
 * @param splitHeap     {@code -Xmx} of the off-heap implementations' workers
 * @param offheapBudget Floe budget (cap on committed bytes) of the off-heap implementations
 */
record Sizing(int llEntries, int llRange, int slEntries, int slRange, long budgetBytes, long heapBytes,
              long splitHeap, long offheapBudget, double scale) {

    static final int LL_KEY_BYTES = 512;
    static final int LL_VALUE_BYTES = 1024;
    static final int SL_KEY_BYTES = 128;
    static final int SL_VALUE_BYTES = 1024;

    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final long PAPER_BUDGET = 14 * GIB;
    private static final long PAPER_HEAP_SPLIT = 4 * GIB;
    private static final int PAPER_SL_ENTRIES = 10_000_000;
    private static final double MACHINE_SHARE = 0.6;
    /** Share of the off-heap budget the initial skiplist values may fill (in allocator blocks). */
    private static final double FIT_SHARE = 0.85;

    /** The quick sizes (independent of the machine). */
    static Sizing of(Mode mode) {
        return of(mode, 1);
    }

    /**
     * The sizes of {@code mode} when {@code liveWorkers} worker JVMs, each holding one budget,
     * are alive at once: in full mode their budgets together stay within
     * {@link #MACHINE_SHARE} of this machine's memory.
     */
    static Sizing of(Mode mode, int liveWorkers) {
        return of(mode, liveWorkers, JvmConfig.DEFAULT);
    }

    /**
     * The sizes of {@code mode} under the budgets of {@code jvm}: the off-heap implementations get
     * its heap and off-heap budget, the gc-* implementations their sum as heap, and the skiplist
     * holds at most as many entries as fill {@link #FIT_SHARE} of the off-heap budget (as in full
     * mode).
     */
    static Sizing of(Mode mode, int liveWorkers, JvmConfig jvm) {
        Sizing z = defaults(mode, liveWorkers);
        if (!jvm.setsBudget()) return z;
        long heap = jvm.heapOr(z.splitHeap), offheap = jvm.offheapOr(z.offheapBudget);
        int sl = Math.max(1, (int) Math.min(z.slEntries, (long) (FIT_SHARE * offheap / valueBlockBytes())));
        return new Sizing(z.llEntries, z.llRange, sl, 2 * sl, heap + offheap, heap + offheap, heap, offheap, z.scale);
    }

    private static Sizing defaults(Mode mode, int liveWorkers) {
        if (mode == Mode.QUICK) {
            return new Sizing(2_048, 4_096, 300_000, 600_000, GIB, GIB, 384 * MIB, 640 * MIB, 1.0);
        }
        long machine = Machine.physicalMemoryBytes();
        double scale = machine <= 0 ? 1.0
                : Math.min(1.0, MACHINE_SHARE * machine / ((double) Math.max(1, liveWorkers) * PAPER_BUDGET));
        long budget = roundMib(PAPER_BUDGET * scale);
        long heap = roundMib(PAPER_HEAP_SPLIT * scale);
        long offheap = budget - heap;
        int sl = (int) Math.min(Math.round(PAPER_SL_ENTRIES * scale), (long) (FIT_SHARE * offheap / valueBlockBytes()));
        return new Sizing(65_536, 131_072, sl, 2 * sl, budget, budget, heap, offheap, scale);
    }

    int entries(Structure s) {
        return s == Structure.LL ? llEntries : slEntries;
    }

    int range(Structure s) {
        return s == Structure.LL ? llRange : slRange;
    }

    static int keyBytes(Structure s) {
        return s == Structure.LL ? LL_KEY_BYTES : SL_KEY_BYTES;
    }

    static int valueBytes(Structure s) {
        return s == Structure.LL ? LL_VALUE_BYTES : SL_VALUE_BYTES;
    }

    /** The JSON description of these sizes (part of the suite's config). */
    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ll_key_bytes", LL_KEY_BYTES);
        m.put("ll_value_bytes", LL_VALUE_BYTES);
        m.put("ll_entries", llEntries);
        m.put("ll_key_range", llRange);
        m.put("sl_key_bytes", SL_KEY_BYTES);
        m.put("sl_value_bytes", SL_VALUE_BYTES);
        m.put("sl_entries", slEntries);
        m.put("sl_key_range", slRange);
        m.put("ram_budget_bytes", budgetBytes);
        m.put("gc_heap_bytes", heapBytes);
        m.put("offheap_impl_heap_bytes", splitHeap);
        m.put("offheap_impl_offheap_budget_bytes", offheapBudget);
        m.put("paper_scale", scale);
        m.put("sl_value_block_bytes", valueBlockBytes());
        return m;
    }

    /** The allocator block a SOMAR value slice takes: 8-byte header + 1 KiB, rounded to its size class. */
    static long valueBlockBytes() {
        return SizeClasses.blockSize(SizeClasses.classOf(SL_VALUE_BYTES + 8));
    }

    private static long roundMib(double bytes) {
        return Math.max(64, Math.round(bytes / MIB)) * MIB;
    }
}
