package dev.floe.bench.somar;

import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.Comparison;
import dev.floe.bench.harness.GcTotals;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.JitWarmUp;
import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Ratio;
import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.TargetCheck;
import dev.floe.bench.harness.TimedRun;
import dev.floe.bench.harness.Trial;
import dev.floe.bench.harness.WorkloadFilter;
import dev.floe.bench.harness.YoungCollection;
import dev.floe.memory.FloeOutOfMemoryException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The {@code somar} suite: the Nova paper's section 4.1. Off-heap keys and values indexed by
 * on-heap Java structures, Nova against epoch-based reclamation, hazard eras, a grow-only
 * allocator, plain on-heap objects under three collectors and one FFM arena per object.
 *
 * <p>Workloads ({@link Workload}): {@code ll-…} on the LL-map ({@link LlMap}), {@code sl-…} on
 * the skiplist ({@link SlMap}), each {@code write-heavy} (50% put / 50% delete),
 * {@code read-heavy} (5/5/90 put/delete/get) and {@code read-write} (25/25/50). Sizes and memory
 * budgets per mode: {@link Sizing}.
 *
 * <p>Runs: every worker JVM builds a structure once (filled with half of its key range, chosen
 * at random with a fixed seed) and keeps it for all the runs of that structure's workloads: with
 * puts and deletes equally likely and keys uniform over twice the fill, the size stays near the
 * fill. After the fill the worker runs one young collection ({@link YoungCollection}), so that the
 * first run does not meet the on-heap objects in the fill's allocation order while later ones meet
 * them copied by the collector. A structure is built again if grow-only leaked past the off-heap
 * budget. A run that runs out of memory (Java heap or Floe budget) reports 0 ops/s with
 * {@code extra.out_of_memory = 1} and rebuilds the structure for the next run, instead of failing
 * the suite.
 *
 * <p>Ratios: {@code floe-nova} against each collector ({@code gc-g1}, {@code gc-zgc},
 * {@code gc-parallel}), {@code floe-ebr}, {@code floe-he},
 * {@code grow-only} and {@code floe-nova-magic} (the magic-number mode's cost: a ratio above 1
 * means magic mode is slower) on ops/s in every cell. Goals (paper, Figure 4(a)-(c)), on
 * {@code ll-read-write} at every thread count: at least 2x {@code gc-g1}, 1.2x {@code floe-ebr}
 * and {@code floe-he}, and within 10% of {@code grow-only}.
 */
public final class SomarSuite implements Suite {

    private static final String NOVA = SomarImpl.FLOE_NOVA.label();
    private static final List<String> RATIO_AGAINST = List.of(SomarImpl.GC_G1.label(), SomarImpl.GC_ZGC.label(),
            SomarImpl.GC_PARALLEL.label(), SomarImpl.FLOE_EBR.label(), SomarImpl.FLOE_HE.label(),
            SomarImpl.GROW_ONLY.label(), SomarImpl.FLOE_NOVA_MAGIC.label());
    private static final long FILL_SEED = 42;

    /** A throughput goal on ll-read-write: floe-nova at least {@code minRatio} times {@code vs}. */
    private record RatioGoal(String vs, double minRatio, String description) {}

    private static final List<RatioGoal> GOALS = List.of(
            new RatioGoal(SomarImpl.GC_G1.label(), 2.0, NOVA + " >= 2x gc-g1 ops/s"),
            new RatioGoal(SomarImpl.FLOE_EBR.label(), 1.2, NOVA + " >= 1.2x floe-ebr ops/s"),
            new RatioGoal(SomarImpl.FLOE_HE.label(), 1.2, NOVA + " >= 1.2x floe-he ops/s"),
            new RatioGoal(SomarImpl.GROW_ONLY.label(), 0.9, NOVA + " within 10% of grow-only ops/s"));
    private static final Workload GOAL_WORKLOAD = Workload.LL_READ_WRITE;

    // Worker-side state: the structure this worker's runs use, kept across runs.
    private SomarImpl currentImpl;
    private Structure currentStructure;
    private Mode currentMode;
    private BenchMap current;
    private long runCounter;

    @Override
    public String name() {
        return "somar";
    }

    @Override
    public String description() {
        return "SOMAR (Nova paper 4.1): LL-map and skiplist with off-heap keys/values vs EBR, HE, grow-only, GCs, FFM";
    }

    @Override
    public List<String> impls() {
        return SomarImpl.labels();
    }

    @Override
    public Settings defaults(Mode mode) {
        if (mode == Mode.FULL) return new Settings(mode, 10, 5, 3, Settings.fullThreads(), impls());
        return new Settings(mode, 0.2, 0.15, 3, List.of(1, 2), impls());
    }

    @Override
    public Map<String, Object> config(Settings s) {
        Sizing z = Sizing.of(s.mode(), s.variants().size(), s.commonBudgets());
        Map<String, Object> m = new LinkedHashMap<>(z.toJson());
        m.put("scaling", s.mode() == Mode.QUICK
                ? "quick: LL-map 2,048 entries / 4,096 keys (paper ~65K / ~130K; O(n) per operation); skiplist "
                  + "300,000 / 600,000 (paper 10M / 20M) under 1 GiB (paper 14 GB): gc-* -Xmx1g, off-heap "
                  + "implementations 384 MiB heap + 640 MiB Floe budget (paper 4 GB + 10 GB)"
                : "full: LL-map as the paper; RAM budget as the paper times paper_scale (<= 1 when 14 GiB exceeds "
                  + "60% of this machine's memory), split 4:10 heap:off-heap; skiplist entries as the paper times "
                  + "paper_scale, capped so that SOMAR value blocks (sl_value_block_bytes: 1 KiB + 8-byte header "
                  + "in a size class) fill at most 85% of the off-heap budget (the paper's 10M would not fit)");
        m.put("paper", "Nova (ECOOP 2024) 4.1: LL-map 65K entries / 130K keys, 512 B keys, 1 KB values; CSLM 10M / 20M, "
                + "128 B keys, 1 KB values, 14 GB budget (4 on-heap + 10 off-heap); 30 s runs, 1-32 threads");
        m.put("ll_map", "Harris lock-free ordered list, on-heap nodes (marker nodes as the mark bit); each node visit "
                + "compares the key through one SOMAR read (readOr). put: overwrite the value in place (write) if "
                + "present, else allocate key+value, writePrivate, CAS in, deletePrivate both on a lost race; "
                + "delete: mark, unlink, delete key and value; get: read 16 bytes of the value");
        m.put("skiplist", "ConcurrentSkipListMap<128-byte byte[] key, value object>; put allocates and writePrivates a "
                + "new 1 KiB slice, swaps it in (put) and deletes the old one; delete removes and deletes; get reads "
                + "16 bytes. floe-nova and floe-nova-object are the same here (a map value must be an object)");
        m.put("keys", "unsigned lexicographic byte strings: key id big-endian in the first 8 bytes, fixed filler after; "
                + "uniform over the key range, seeded per thread and run (same streams for every implementation)");
        m.put("fill", "half the key range, chosen at random (seed " + FILL_SEED + "), once per worker JVM and "
                + "structure, kept across runs (size stays near the fill); grow-only's structure is rebuilt when it "
                + "has leaked past the off-heap budget");
        m.put("grow_only_cap_bytes", SomarImpl.growOnlyCap(z));
        m.put("memory", "per result, at the end of the measured window: heap_used_bytes (MemoryMXBean, garbage "
                + "included), offheap committed/live from Floe's MemoryStats (live includes deleted slices awaiting "
                + "reclamation; slices carry an 8-byte header and take a size-class block: 1 KiB values use 1280-byte "
                + "blocks, 512-byte keys 640-byte blocks); segment-per-object: entries x key/value bytes (FFM has no "
                + "counters). extra: entries, heap_after_gc_bytes (heap pools after the last collection), gc_ms and "
                + "gc_count during the window (collector MXBeans; for ZGC its pause beans), gc_cycles_ms (ZGC only: "
                + "time of its concurrent cycles during the window), alloc_bytes_per_op "
                + "(heap bytes the benchmark threads allocated per operation: the paper's allocation churn), "
                + "jit_ms (JIT compilation time during the measured window: the suite has no separate JIT warm-up, "
                + "the cells' own warm-ups and the worker's earlier cells leave little to compile), out_of_memory");
        m.put("segment_per_object", "one Arena.ofShared() per key and per value, closed on delete (a handshake with "
                + "every thread); runs in every mode (runs are time-bound), no off-heap cap");
        m.put("isolation", "one worker JVM per implementation (its collector and heap in jvm_args)");
        return m;
    }

    /**
     * System property restricting the suite to some workloads (comma-separated names), e.g. for a
     * paper-scale run of {@code ll-read-write} alone; the CLI has no workload option.
     */
    static final String WORKLOADS_PROPERTY = "floe.bench.somar.workloads";

    @Override
    public List<Cell> cells(Settings s) {
        List<String> only = WorkloadFilter.selected(WORKLOADS_PROPERTY, Workload::byLabel);
        List<Cell> cells = new ArrayList<>();
        for (Workload w : Workload.values()) {
            if (only != null && !only.contains(w.label())) continue;
            for (int t : s.threads()) cells.add(new Cell(w.label(), t, Isolation.SHARED_WORKER));
        }
        return cells;
    }

    @Override
    public List<Comparison> comparisons(Cell cell, List<String> impls) {
        List<Comparison> out = new ArrayList<>();
        if (!impls.contains(NOVA)) return out;
        for (String vs : RATIO_AGAINST) {
            if (impls.contains(vs)) out.add(new Comparison(NOVA, vs, Metric.OPS_PER_S));
        }
        return out;
    }

    @Override
    public List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm) {
        return SomarImpl.byLabel(impl).jvmArgs(Sizing.of(mode, liveWorkers, jvm));
    }

    /** The suite compares collectors (gc-*) and heap / off-heap splits. */
    @Override
    public boolean comparesCollectors() {
        return true;
    }

    @Override
    public Optional<Collector> collectorOf(String impl) {
        return SomarImpl.byLabel(impl).collector();
    }

    @Override
    public List<TargetCheck> targets(SuiteReport report) {
        List<TargetCheck> checks = new ArrayList<>();
        for (RatioGoal g : GOALS) {
            for (Ratio r : report.ratios()) {
                if (r.workload().equals(GOAL_WORKLOAD.label()) && r.impl().equals(NOVA) && r.vs().equals(g.vs())
                        && r.metric().equals(Metric.OPS_PER_S.name())) {
                    checks.add(new TargetCheck("ops-vs-" + g.vs(), g.description(), r.workload(), r.threads(), NOVA,
                            g.vs(), "ops_per_s_ratio", r.medianRatio(), ">=", g.minRatio()));
                }
            }
        }
        return checks;
    }

    @Override
    public Sample measure(Trial trial) throws Exception {
        SomarImpl impl = SomarImpl.byLabel(trial.impl());
        Workload w = Workload.byLabel(trial.workload());
        Sizing z = Sizing.of(trial.mode(), Integer.getInteger(LIVE_WORKERS, 1), trial.jvm());
        try {
            BenchMap map = structure(impl, w.structure, trial.mode(), z);
            int range = z.range(w.structure);
            if (trial.warmupSeconds() > 0) {
                TimedRun.run(tasks(map, w, range, trial.threads()), trial.warmupSeconds(), () -> null);
            }
            List<MapTask> tasks = tasks(map, w, range, trial.threads());
            GcTotals before = GcTotals.now();
            long jitBefore = JitWarmUp.compileMillis();
            TimedRun.Outcome o = TimedRun.run(tasks, trial.durationSeconds(),
                    () -> MemorySnapshot.capture(map.offheapCommittedBytes(), map.offheapLiveBytes()));
            long jitAfter = JitWarmUp.compileMillis();
            GcTotals gc = GcTotals.now().minus(before);
            Map<String, Double> extra = new LinkedHashMap<>();
            extra.put("entries", (double) map.size());
            extra.put("heap_after_gc_bytes", (double) GcTotals.heapAfterLastGc());
            extra.put("gc_ms", (double) gc.millis());
            extra.put("gc_count", (double) gc.count());
            if (gc.cycleMillis() >= 0) extra.put("gc_cycles_ms", (double) gc.cycleMillis());
            if (jitBefore >= 0) extra.put("jit_ms", (double) (jitAfter - jitBefore));
            long allocated = 0;
            for (MapTask t : tasks) allocated = allocated < 0 || t.allocatedBytes() < 0 ? -1 : allocated + t.allocatedBytes();
            if (allocated >= 0 && o.ops() > 0) extra.put("alloc_bytes_per_op", (double) allocated / o.ops());
            return new Sample(Map.of(Metric.OPS_PER_S.name(), o.opsPerSecond()), o.memory(), extra);
        } catch (OutOfMemoryError | FloeOutOfMemoryException e) {
            drop();
            System.gc();
            System.err.println("somar: " + trial.impl() + " ran out of memory on " + trial.workload() + ": " + e);
            return new Sample(Map.of(Metric.OPS_PER_S.name(), 0.0), MemorySnapshot.capture(0, 0),
                    Map.of("out_of_memory", 1.0));
        }
    }

    private List<MapTask> tasks(BenchMap map, Workload w, int range, int threads) {
        long run = ++runCounter;
        List<MapTask> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) tasks.add(new MapTask(map, w.mix, range, run * 1_000_003L + t * 7919L));
        return tasks;
    }

    /** This worker's structure for the run: kept from the previous run when it fits, else built and filled. */
    private BenchMap structure(SomarImpl impl, Structure s, Mode mode, Sizing z) {
        if (current != null && (impl != currentImpl || s != currentStructure || mode != currentMode
                || impl.needsRebuild(current, z))) {
            drop();
        }
        if (current == null) {
            BenchMap map = impl.open(s, z);
            try {
                fill(map, z.entries(s), z.range(s), FILL_SEED);
            } catch (RuntimeException | Error e) {
                map.close();
                throw e;
            }
            YoungCollection.run(); // every implementation alike (class comment)
            current = map;
            currentImpl = impl;
            currentStructure = s;
            currentMode = mode;
        }
        return current;
    }

    private void drop() {
        BenchMap old = current;
        current = null;
        if (old != null) old.close();
    }

    /**
     * Puts {@code entries} distinct keys chosen uniformly from {@code [0, range)}, in descending
     * order (each list insertion then stops at the first node).
     */
    static void fill(BenchMap map, int entries, int range, long seed) {
        int[] ids = new int[range];
        for (int i = 0; i < range; i++) ids[i] = i;
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < entries; i++) {
            int j = i + r.nextInt(range - i);
            int x = ids[i];
            ids[i] = ids[j];
            ids[j] = x;
        }
        int[] chosen = java.util.Arrays.copyOf(ids, entries);
        java.util.Arrays.sort(chosen);
        Probe p = map.newProbe();
        for (int i = entries - 1; i >= 0; i--) map.put(p.key(chosen[i]));
    }
}
