package dev.floe.bench.map;

import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Comparison;
import dev.floe.bench.harness.GcTotals;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.JitWarmUp;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.PeriodicSampler;
import dev.floe.bench.harness.Ratio;
import dev.floe.bench.harness.Result;
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
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code map} suite: the Oak paper's evaluation (PPoPP 2020, section 5) of Floe's
 * {@link dev.floe.map.OakMap} against {@code ConcurrentSkipListMap} on the heap ({@code cslm}),
 * the same skiplist with values in Nova slices ({@code cslm-offheap}) and MapDB's off-heap B-tree
 * ({@code mapdb}); {@code floe-oak-noreclaim} (reclamation off) is the put-delete baseline.
 *
 * <p>Workloads ({@link MapWorkload}): {@code put}, {@code put-if-absent}, {@code zc-get},
 * {@code get-copy}, {@code compute}, {@code mix95}, {@code put-delete}, {@code rw},
 * {@code scan-asc}, {@code scan-desc} as timed runs at every thread count, and {@code ingest}
 * (one thread, a fresh JVM per run: how much data the RAM budget holds). Sizes: {@link MapSizing}.
 *
 * <p>Runs: every worker JVM hosts one implementation and keeps one map, filled from one thread with
 * half of the key range (a fixed random choice, inserted in random order with putIfAbsent).
 * Workloads that grow the map (put, put-if-absent, compute, mix95) get a freshly built and
 * filled map before every run (warm-up included); the others keep the map across runs, building
 * it again only after a growing workload. After every fill the worker runs one young collection
 * ({@link YoungCollection}: why and what it changed for {@code cslm}'s scans), so that no run
 * meets the fill in its allocation order by chance. {@code floe-oak-noreclaim} leaks, so it gets a fresh
 * map before every run; it only measures put-delete, and {@code rollup} measures {@code floe-oak}
 * and {@code cslm} only ({@link #measures}: the other pairs have no row in the report). A run
 * that runs out of memory reports 0 ops/s with {@code extra.out_of_memory = 1}.
 *
 * <p>Ratios: {@code floe-oak} against {@code cslm}, {@code cslm-offheap} and {@code mapdb} on
 * ops/s in every cell (for ingest also on {@code ingested_bytes}), and against
 * {@code floe-oak-noreclaim} on put-delete. Goals: see {@link #targets}.
 */
public final class MapSuite implements Suite {

    static final String OAK = MapImpl.FLOE_OAK.label();
    static final String CSLM = MapImpl.CSLM.label();
    static final String NORECLAIM = MapImpl.FLOE_OAK_NORECLAIM.label();
    private static final List<String> RATIO_AGAINST = List.of(CSLM, MapImpl.CSLM_OFFHEAP.label(), MapImpl.MAPDB.label());
    private static final long FILL_SEED = 42;

    /** A ratio goal: floe-oak's ratio to {@code vs} on {@code metric} in {@code workload} at least {@code min}. */
    private record RatioGoal(String target, String workload, String vs, Metric metric, double min, String description) {}

    private static final List<RatioGoal> RATIO_GOALS = List.of(
            new RatioGoal("zc-get-vs-cslm", "zc-get", CSLM, Metric.OPS_PER_S, 2.0, OAK + " >= 2x cslm ops/s"),
            new RatioGoal("put-vs-cslm", "put", CSLM, Metric.OPS_PER_S, 2.0, OAK + " >= 2x cslm ops/s"),
            new RatioGoal("mix95-vs-cslm", "mix95", CSLM, Metric.OPS_PER_S, 2.0, OAK + " >= 2x cslm ops/s"),
            new RatioGoal("compute-vs-cslm", "compute", CSLM, Metric.OPS_PER_S, 1.6, OAK + " >= 1.6x cslm (merge) ops/s"),
            new RatioGoal("scan-desc-vs-cslm", "scan-desc", CSLM, Metric.OPS_PER_S, 10.0, OAK + " >= 10x cslm scans/s"),
            new RatioGoal("scan-asc-vs-cslm", "scan-asc", CSLM, Metric.OPS_PER_S, 1.0, OAK + " >= 1x cslm scans/s"),
            new RatioGoal("reclaim-overhead", "put-delete", NORECLAIM, Metric.OPS_PER_S, 0.9,
                    OAK + " within 10% of floe-oak-noreclaim ops/s"),
            new RatioGoal("capacity-vs-cslm", "ingest", CSLM, Ingest.INGESTED_BYTES, 1.3,
                    OAK + " holds >= 1.3x the data of cslm in the same RAM budget"),
            new RatioGoal("rollup-vs-cslm", "rollup", CSLM, Metric.OPS_PER_S, 1.8,
                    OAK + " >= 1.8x cslm rollup ingestion tuples/s"),
            new RatioGoal("rollup-overhead-vs-cslm", "rollup", CSLM, RollupIngest.METADATA_OVERHEAD, 2.0,
                    OAK + " metadata overhead <= half of cslm's"));

    /** Off-heap bytes per raw key+value byte after the fill (floe-oak, zc-get). */
    static final double MAX_OFFHEAP_PER_RAW = 1.15;
    /** Largest RSS over the first sample of a floe-oak put-delete run. */
    static final double MAX_RSS_FLAT_RATIO = 1.10;

    // Worker-side state: this worker's map, kept across runs while valid.
    private MapImpl currentImpl;
    private Mode currentMode;
    private MapSizing currentSizing;
    private MapUnderTest current;
    /** The map is no longer the fill (a growing workload ran on it). */
    private boolean dirty;
    /** Rounds of this worker's JIT warm-up ({@link #warmUpJit}). */
    private int jitWarmupRounds;
    /** The one-time JIT warm-up of this worker ran ({@link #warmUpJit}). */
    private boolean jitWarm;
    private long runCounter;

    /**
     * The CLI's {@code --key-bytes} / {@code --value-bytes}: sets the sizing properties the
     * coordinator reads and passes on to every worker (null leaves a size at its default).
     *
     * @throws IllegalArgumentException for a size below 8 bytes or above what a map slice holds
     */
    public static void entrySizes(Integer keyBytes, Integer valueBytes) {
        if (keyBytes != null) System.setProperty(MapSizing.KEY_BYTES_PROPERTY, checkSize("--key-bytes", keyBytes));
        if (valueBytes != null) System.setProperty(MapSizing.VALUE_BYTES_PROPERTY, checkSize("--value-bytes", valueBytes));
    }

    private static String checkSize(String option, int bytes) {
        return Integer.toString(MapSizing.checkEntryBytes(option, bytes));
    }

    @Override
    public String name() {
        return "map";
    }

    @Override
    public String description() {
        return "Oak map (Oak paper 5): floe-oak vs ConcurrentSkipListMap on-/off-heap and MapDB, 100 B keys / 1 KB values";
    }

    @Override
    public List<String> impls() {
        return MapImpl.labels();
    }

    @Override
    public Settings defaults(Mode mode) {
        if (mode == Mode.FULL) return new Settings(mode, 10, 5, 3, Settings.fullThreads(), impls());
        return new Settings(mode, 0.3, 0.2, 3, List.of(1, 2), impls());
    }

    @Override
    public Map<String, Object> config(Settings s) {
        MapSizing z = MapSizing.of(s.mode(), s.variants().size(), s.commonBudgets());
        Map<String, Object> m = new LinkedHashMap<>(z.toJson());
        m.put("scaling", s.mode() == Mode.QUICK
                ? String.format(Locale.ROOT, "quick: %,d entries over %,d keys (paper 10M / 20M; fewer than 25,000 only when "
                  + "large entries would take more than 40%% of the off-heap budget), scans of %,d entries (paper 10,000), ",
                  z.entries(), z.range(), z.scanLength())
                  + "0.3 s runs after 0.2 s warm-up (paper 30 s), RAM budget 256 MiB per worker: cslm -Xmx256m, "
                  + "off-heap implementations -Xmx32m + 224 MiB off-heap"
                : "full: RAM budget per worker = 60% of machine memory / (shared workers + the ingest JVM), at most "
                  + "32 GiB, an eighth of it heap for the off-heap implementations; fill = the paper's 10M entries "
                  + "capped at 40% of the off-heap budget in Oak blocks (paper_scale = fill / 10M); scans of 10,000");
        m.put("paper", "Oak (PPoPP 2020) section 5: 100 B keys, 1 KB values, keys uniform over a range, half of it "
                + "ingested with putIfAbsent from one thread, 30 s runs, median of 5; same RAM budget for all, Oak and "
                + "CSLM-OffHeap split it heap / off-heap, CSLM gets it all as heap");
        m.put("keys", "key id big-endian in the first 8 bytes, fixed filler after; unsigned lexicographic order "
                + "(first word as an unsigned long, then the rest; Oak's order prefix = the first word); uniform over "
                + "the range, seeded per thread and run (same streams for every implementation)");
        m.put("fill_method", "half of the range, a fixed random choice (seed " + FILL_SEED + "), inserted in random order with "
                + "putIfAbsent from one thread; rebuilt before every run of put, put-if-absent, compute and mix95 "
                + "(they grow the map) and after them; floe-oak-noreclaim rebuilt before every run");
        m.put("operations", "floe-oak: zc().put / putIfAbsent / remove (no old value), zc().get(k).getLong(0) (zc-get), "
                + "legacy get (get-copy: a deserialized byte[]), zc().putIfAbsentComputeIfPresent with an in-place "
                + "8-byte increment (compute), zc().tailMap(k, true).valueStreamSet() of the map or its descendingMap() "
                + "(scans); cslm / cslm-offheap / mapdb: put, containsKey + putIfAbsent (put-if-absent; mapdb "
                + "putIfAbsentBoolean), get (zc-get reads the stored array; get-copy copies it), merge with an "
                + "incremented copy (compute; cslm-offheap: atomic add in the Nova slice), tailMap(k, true).values() "
                + "of the map or its descendingMap(); every read reads the value's first 8 bytes");
        m.put("cslm_offheap", "ConcurrentSkipListMap<byte[], ref>, on-heap keys, values in Nova slices (Floe allocator, "
                + "the off-heap budget); put swaps in a new slice and deletes the old one");
        m.put("mapdb", "MapDB 3.1 BTreeMap, DBMaker.memoryDirectDB(), Serializer.BYTE_ARRAY keys and values, "
                + "valuesOutsideNodesEnable(); off-heap capped by -XX:MaxDirectMemorySize; off-heap figures from the "
                + "JVM's direct buffer pool");
        m.put("ingest", "fresh JVM per run, one thread, putIfAbsent of new keys in random order into an empty map "
                + "until the Java heap, the off-heap budget or the time limit runs out; ingested_bytes = entries x "
                + "(key + value bytes)");
        m.put("memory", "per result at the end of the window: rss, heap used, off-heap committed/live (Floe "
                + "MemoryStats; mapdb: direct buffer pool). extra: entries, gc_ms, gc_count, heap_after_gc_bytes, "
                + "alloc_bytes_per_op, jit_ms (compilation during the measured run), jit_warmup_rounds, cell_warmup_slices (first run of a cell); floe-oak: offheap_footprint_bytes (OakMap.offHeapFootprint), "
                + "offheap_live_per_raw (allocator live bytes / raw key+value bytes), footprint_per_raw; scans: "
                + "entries_per_s; put-delete: rss_first/last/min/max_bytes, rss_samples and rss_flat_ratio (max / "
                + "first) of VmRSS sampled during the measured window (after the warm-up)");
        m.put("not_run", "floe-oak-noreclaim measures put-delete only, rollup measures floe-oak and cslm only; "
                + "the other pairs have no results");
        m.put("isolation", "one worker JVM per implementation; ingest and rollup: a fresh JVM per run");
        m.put("ingest_runs", runs(new Cell(MapWorkload.INGEST.label(), 1, Isolation.FRESH_JVM), s));
        m.put("jit_warmup", "once per worker before its first cell: rounds of every timed workload it measures "
                + "on a map filled once per round (not after every workload that grows it), "
                + jitWarmupRoundSeconds(s.mode()) + " s each, every other round (the first included) with two threads "
                + "and then, for the workloads that write, half as long on a " + MapSizing.CONTENDED_KEYS + "-key map "
                + "(contended paths), until two rounds compiled less than "
                + JitWarmUp.QUIET_COMPILE_MS + " ms (at least " + jitWarmupSeconds(s.mode()) + " s, at most "
                + jitWarmupMaxSeconds(s.mode()) + " s); then before each cell's first run, slices of that cell's "
                + "workload at its thread count, " + cellWarmupSliceSeconds(s.mode()) + " s each, by the same rule (at "
                + "least --warmup seconds, at most one more; extra.cell_warmup_slices)");
        m.put("rollup_input_heap_bytes", RollupIngest.inputHeapBytes(s.mode(), z)); // added to every rollup JVM's heap
        return m;
    }

    /**
     * System property restricting the suite to some workloads (comma-separated names), e.g. for a
     * long put-delete RSS run; the CLI has no workload option.
     */
    static final String WORKLOADS_PROPERTY = "floe.bench.map.workloads";

    @Override
    public List<Cell> cells(Settings s) {
        List<String> only = selectedWorkloads();
        List<Cell> cells = new ArrayList<>();
        for (MapWorkload w : MapWorkload.values()) {
            if (only != null && !only.contains(w.label())) continue;
            if (w == MapWorkload.INGEST || w == MapWorkload.ROLLUP) {
                cells.add(new Cell(w.label(), 1, Isolation.FRESH_JVM));
                continue;
            }
            for (int t : s.threads()) cells.add(new Cell(w.label(), t, Isolation.SHARED_WORKER));
        }
        return cells;
    }

    /** The workloads named by {@link #WORKLOADS_PROPERTY}, or null for all. */
    private static List<String> selectedWorkloads() {
        return WorkloadFilter.selected(WORKLOADS_PROPERTY, MapWorkload::byLabel);
    }

    @Override
    public boolean measures(String impl, Cell cell) {
        return MapImpl.byLabel(impl).runs(MapWorkload.byLabel(cell.workload()));
    }

    /**
     * {@code ingest} runs once per implementation in quick mode, the others {@link Settings#runs()}
     * times: its goal reads {@code ingested_bytes}, a fill up to a limit that hardly moves between
     * runs (three main jobs: {@code floe-oak} 206,592 entries every time, {@code cslm-offheap}
     * within 2%), and no goal reads its rate; its fresh JVMs took 37 s of a 561 s main job
     * (docs/benchmarks.md). An explicit {@code --runs} applies to {@code ingest} too.
     */
    @Override
    public int runs(Cell cell, Settings settings) {
        boolean quickIngest = settings.mode() == Mode.QUICK && cell.workload().equals(MapWorkload.INGEST.label());
        return quickIngest && !settings.runsGiven() ? 1 : settings.runs(); // Settings refuses runs < 1
    }

    @Override
    public List<Comparison> comparisons(Cell cell, List<String> impls) {
        List<Comparison> out = new ArrayList<>();
        if (!impls.contains(OAK)) return out;
        boolean ingest = cell.workload().equals(MapWorkload.INGEST.label());
        boolean rollup = cell.workload().equals(MapWorkload.ROLLUP.label());
        for (String vs : RATIO_AGAINST) {
            if (!impls.contains(vs)) continue; // not selected, or no runs in this cell (rollup)
            out.add(new Comparison(OAK, vs, Metric.OPS_PER_S));
            if (ingest) out.add(new Comparison(OAK, vs, Ingest.INGESTED_BYTES));
            if (rollup) out.add(new Comparison(OAK, vs, RollupIngest.METADATA_OVERHEAD));
        }
        if (cell.workload().equals(MapWorkload.PUT_DELETE.label()) && impls.contains(NORECLAIM)) {
            out.add(new Comparison(OAK, NORECLAIM, Metric.OPS_PER_S));
        }
        return out;
    }

    @Override
    public List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm) {
        return MapImpl.byLabel(impl).jvmArgs(MapSizing.of(mode, liveWorkers, jvm));
    }

    /** The suite compares on-heap and off-heap maps under one RAM budget: it takes --gc, --heap and --offheap. */
    @Override
    public boolean comparesCollectors() {
        return true;
    }

    /**
     * A rollup run's JVM gets the heap its pre-generated input takes on top of the RAM budget's
     * share, every implementation alike: the input stands for the stream an index ingests
     * (Druid reads it from Kafka), not for the index, and inside floe-oak's heap share it took
     * 45% of the heap and made that JVM collect every few milliseconds.
     */
    @Override
    public List<String> jvmArgs(String impl, Mode mode, int liveWorkers, JvmConfig jvm, String workload) {
        MapSizing z = MapSizing.of(mode, liveWorkers, jvm);
        long extra = workload.equals(MapWorkload.ROLLUP.label()) ? RollupIngest.inputHeapBytes(mode, z) : 0;
        return MapImpl.byLabel(impl).jvmArgs(z, extra);
    }

    /**
     * The goals (issue: the Oak map), each at every thread count measured: floe-oak at least 2x
     * cslm on zc-get, put and mix95, 1.6x on compute, 10x on scan-desc, 1x on scan-asc; put-delete
     * within 10% of floe-oak-noreclaim; ingest: 1.3x the data of cslm in the same RAM budget;
     * after the fill (zc-get, first thread count) the allocator's live bytes at most 1.15x the raw
     * key+value bytes; put-delete RSS flat within 10% during the measured window.
     */
    @Override
    public List<TargetCheck> targets(SuiteReport report) {
        List<TargetCheck> checks = new ArrayList<>();
        for (RatioGoal g : RATIO_GOALS) {
            for (Ratio r : report.ratios()) {
                if (r.workload().equals(g.workload()) && r.impl().equals(OAK) && r.vs().equals(g.vs())
                        && r.metric().equals(g.metric().name())) {
                    checks.add(new TargetCheck(g.target(), g.description(), r.workload(), r.threads(), OAK, g.vs(),
                            g.metric().name() + "_ratio", r.medianRatio(), ">=", g.min()));
                }
            }
        }
        for (Result r : report.results()) {
            if (r.impl().equals(OAK) && r.workload().equals(MapWorkload.ZC_GET.label())
                    && r.extra().containsKey("offheap_live_per_raw")
                    && checks.stream().noneMatch(c -> c.target().equals("offheap-overhead"))) {
                checks.add(new TargetCheck("offheap-overhead", OAK + " off-heap live bytes within 15% of raw key+value "
                        + "bytes after the fill", r.workload(), r.threads(), OAK, null, "offheap_live_per_raw",
                        r.extra().get("offheap_live_per_raw"), "<=", MAX_OFFHEAP_PER_RAW));
            }
        }
        for (Result r : report.results()) {
            if (r.impl().equals(OAK) && r.workload().equals(MapWorkload.PUT_DELETE.label())
                    && r.extra().containsKey("rss_flat_ratio")) {
                checks.add(new TargetCheck("rss-flat", OAK + " put-delete RSS flat within 10% (max / first sample)",
                        r.workload(), r.threads(), OAK, null, "rss_flat_ratio", r.extra().get("rss_flat_ratio"),
                        "<=", MAX_RSS_FLAT_RATIO));
            }
        }
        return checks;
    }

    // ---- worker side -----------------------------------------------------------------------------

    @Override
    public Sample measure(Trial trial) throws Exception {
        MapImpl impl = MapImpl.byLabel(trial.impl());
        MapWorkload w = MapWorkload.byLabel(trial.workload());
        MapSizing z = MapSizing.of(trial.mode(), Integer.getInteger(LIVE_WORKERS, 1), trial.jvm());
        if (!impl.runs(w)) throw new IllegalArgumentException(impl.label() + " has no runs of " + w.label());
        if (w == MapWorkload.INGEST) {
            drop();
            return Ingest.run(impl, z);
        }
        if (w == MapWorkload.ROLLUP) {
            drop();
            return RollupIngest.measure(impl.label(), trial.mode(), z);
        }
        try {
            int cellWarmupSlices = 0;
            boolean fresh = w.grows() || impl.freshMapPerRun();
            String what = impl.label() + " " + w.label() + " t=" + trial.threads();
            if (!jitWarm) warmUpJit(impl, trial.mode(), z, trial.threads());
            if (trial.warmupSeconds() > 0) {
                MapUnderTest map = map(impl, trial.mode(), z, fresh);
                if (w.grows()) dirty = true;
                // The cell's own warm-up, until the JIT is quiet (JitWarmUp.cell): a two-thread
                // put-delete still reached paths the worker's rounds rarely took (lock waits,
                // allocator refills), whose first use deoptimized and recompiled, leaving 40-250 ms
                // of compilation inside its 0.3 s runs.
                cellWarmupSlices = JitWarmUp.cell(trial.warmupSeconds(), cellWarmupSliceSeconds(trial.mode()), slice -> {
                    List<OpTask> warm = tasks(map, w, z, trial.threads());
                    Watchdog.run(() -> TimedRun.run(warm, slice, () -> null), Watchdog.limitFor(slice),
                            what + " (warm-up)");
                });
            }
            MapUnderTest map = map(impl, trial.mode(), z, fresh);
            List<OpTask> tasks = tasks(map, w, z, trial.threads());
            GcTotals before = GcTotals.now();
            long jitBefore = JitWarmUp.compileMillis();
            PeriodicSampler rss = w == MapWorkload.PUT_DELETE ? RssFlatness.sample(trial.durationSeconds()) : null;
            TimedRun.Outcome o;
            try {
                o = Watchdog.run(() -> TimedRun.run(tasks, trial.durationSeconds(),
                                () -> MemorySnapshot.capture(map.offheapCommittedBytes(), map.offheapLiveBytes())),
                        Watchdog.limitFor(trial.durationSeconds()), what);
            } finally {
                if (rss != null) rss.close();
                if (w.grows()) dirty = true;
            }
            GcTotals gc = GcTotals.now().minus(before);
            long jitAfter = JitWarmUp.compileMillis();
            Map<String, Double> extra = new LinkedHashMap<>();
            long entries = map.size();
            extra.put("entries", (double) entries);
            extra.put("gc_ms", (double) gc.millis());
            extra.put("gc_count", (double) gc.count());
            extra.put("heap_after_gc_bytes", (double) GcTotals.heapAfterLastGc());
            if (jitBefore >= 0) extra.put("jit_ms", (double) (jitAfter - jitBefore));
            extra.put("jit_warmup_rounds", (double) jitWarmupRounds);
            if (cellWarmupSlices > 0) extra.put("cell_warmup_slices", (double) cellWarmupSlices);
            long allocated = 0, scanned = 0;
            for (OpTask t : tasks) {
                allocated = allocated < 0 || t.allocatedBytes() < 0 ? -1 : allocated + t.allocatedBytes();
                scanned += t.scannedEntries();
            }
            if (allocated >= 0 && o.ops() > 0) extra.put("alloc_bytes_per_op", (double) allocated / o.ops());
            if (w.scan()) extra.put("entries_per_s", scanned * 1e9 / o.nanos());
            extra.putAll(map.extra());
            if (rss != null) extra.putAll(RssFlatness.summarize(rss.samples(0)));
            if (impl.freshMapPerRun()) drop(); // do not keep a leaking map's memory
            return new Sample(Map.of(Metric.OPS_PER_S.name(), o.opsPerSecond()), o.memory(), extra);
        } catch (OutOfMemoryError | FloeOutOfMemoryException e) {
            return outOfMemory(trial, e);
        } catch (RuntimeException e) {
            if (!isOutOfMemory(e)) throw e;
            return outOfMemory(trial, e);
        }
    }

    /**
     * Once per worker JVM, before its first measured cell: rounds in which every timed workload
     * the implementation measures runs for {@link #jitWarmupRoundSeconds} on a filled map (every
     * other round, the first included, with two threads), until the JIT has gone quiet
     * ({@link JitWarmUp}: at least {@link #jitWarmupSeconds}, at most
     * {@link #jitWarmupMaxSeconds}), so that the JIT has compiled every operation of the
     * implementation before any cell's own (short) warm-up. Without it the first cells measure
     * the compilers (a cold JVM ran put-delete at a third of its warm speed after a 0.2 s
     * warm-up); with a fixed 1 s pass instead of the quiet rule, {@code floe-oak}'s C2 work
     * (about 1.2 s of CPU against {@code cslm}'s 0.4 s) went on into the measured two-thread cells,
     * where the compiler threads take a core from a worker thread. Each round starts from a
     * freshly filled map, which the round's growing workloads may grow; the first cell gets a
     * fresh fill too. The rounds are reported as {@code extra.jit_warmup_rounds} of every cell,
     * and the compilation left inside a measured run as {@code extra.jit_ms}.
     */
    private void warmUpJit(MapImpl impl, Mode mode, MapSizing z, int threads) throws Exception {
        jitWarm = true;
        double each = jitWarmupRoundSeconds(mode);
        jitWarmupRounds = JitWarmUp.run(jitWarmupSeconds(mode), jitWarmupMaxSeconds(mode), round -> {
            // every other round, the first included, with two threads (JitWarmUp.roundThreads):
            // with one thread only, put-delete at t=2 still carried about 150 ms of compilation in
            // its 0.3 s runs
            int t = JitWarmUp.roundThreads(round, threads);
            boolean grew = false;
            for (MapWorkload w : MapWorkload.values()) {
                if (w == MapWorkload.INGEST || w == MapWorkload.ROLLUP || !impl.runs(w)) continue;
                MapUnderTest map = map(impl, mode, z, impl.freshMapPerRun());
                List<OpTask> tasks = tasks(map, w, z, t);
                grew |= w.grows();
                Watchdog.run(() -> TimedRun.run(tasks, each, () -> null), Watchdog.limitFor(each),
                        impl.label() + " " + w.label() + " (JIT warm-up)");
                if (t >= 2 && w.writes()) contend(impl, w, z.contended(), t, each / 2);
            }
            // One refill per round, not one after every workload that grows the map: the warm-up
            // compiles, it does not measure, and the fills were about half of a cold round. A
            // round's growing workloads add at most one slice each to the fill.
            if (grew) dirty = true;
        });
        dirty = true; // the first cell starts from a fresh fill
    }

    /**
     * Runs {@code w} with {@code threads} threads for {@code seconds} on a new small map of
     * {@code impl} whose few keys the threads collide on all the time ({@link MapSizing#contended}),
     * then closes it. On the worker's own map, lock waits, lost CASes and frozen chunks are rare,
     * so C2 compiled them as uncommon traps whose first use in a measured two-thread run
     * deoptimized and recompiled the operation inside the run; here they are common. Only for
     * workloads that write (readers alone do not contend), for half a round's time, so that the
     * warm-up still fits two rounds (one with each thread count) in its maximum time.
     */
    private void contend(MapImpl impl, MapWorkload w, MapSizing small, int threads, double seconds) throws Exception {
        try (MapUnderTest map = impl.open(small)) {
            fill(map, small, FILL_SEED);
            List<OpTask> tasks = tasks(map, w, small, threads);
            Watchdog.run(() -> TimedRun.run(tasks, seconds, () -> null), Watchdog.limitFor(seconds),
                    impl.label() + " " + w.label() + " (JIT warm-up, contended)");
        }
    }

    /** Seconds of one slice of a cell's own warm-up: 0.1 in quick mode, 1 in full mode. */
    static double cellWarmupSliceSeconds(Mode mode) {
        return mode == Mode.QUICK ? 0.1 : 1.0;
    }

    /** Least seconds of the per-worker JIT warm-up: 1 in quick mode, 5 in full mode. */
    static double jitWarmupSeconds(Mode mode) {
        return mode == Mode.QUICK ? 1.0 : 5.0;
    }

    /**
     * Most seconds of the per-worker JIT warm-up, whatever the JIT does: 7 in quick mode, 20 in
     * full mode. {@code floe-oak}'s C2 work runs to about 4.7 s of CPU: a 4 s cap ended its
     * warm-up after two rounds (which then refilled the map after every workload that grows it),
     * still compiling about 1 s per round, and the rest ran inside the measured two-thread cells;
     * a 10 s cap took that out but made the main job 25–50 s longer, close to its 10 minutes,
     * because most workers run to the cap (docs/benchmarks.md, map suite).
     */
    static double jitWarmupMaxSeconds(Mode mode) {
        return mode == Mode.QUICK ? 7.0 : 20.0;
    }

    /** Seconds each timed workload runs in one round of the JIT warm-up: 0.1 in quick mode, 0.5 in full mode. */
    static double jitWarmupRoundSeconds(Mode mode) {
        return jitWarmupSeconds(mode) / 10;
    }

    private Sample outOfMemory(Trial trial, Throwable e) {
        drop();
        System.gc();
        System.err.println("map: " + trial.impl() + " ran out of memory on " + trial.workload() + ": " + e);
        return new Sample(Map.of(Metric.OPS_PER_S.name(), 0.0), MemorySnapshot.capture(0, 0),
                Map.of("out_of_memory", 1.0));
    }

    /** MapDB wraps a full direct-memory cap in its own exception. */
    private static boolean isOutOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError || t instanceof FloeOutOfMemoryException) return true;
            if (t.getClass().getName().equals("org.mapdb.DBException$OutOfMemory")) return true;
        }
        return false;
    }

    private List<OpTask> tasks(MapUnderTest map, MapWorkload w, MapSizing z, int threads) {
        long run = ++runCounter;
        List<OpTask> tasks = new ArrayList<>();
        for (int t = 0; t < threads; t++) tasks.add(new OpTask(map, w, z, run * 1_000_003L + t * 7919L));
        return tasks;
    }

    /** This worker's map for the next run: kept when it still holds the fill, else built and filled. */
    private MapUnderTest map(MapImpl impl, Mode mode, MapSizing z, boolean fresh) {
        if (current != null && (fresh || dirty || impl != currentImpl || mode != currentMode || !z.equals(currentSizing))) {
            drop();
        }
        if (current == null) {
            MapUnderTest map = impl.open(z);
            try {
                fill(map, z, FILL_SEED);
            } catch (RuntimeException | Error e) {
                map.close();
                throw e;
            }
            YoungCollection.run(); // every implementation alike (class comment)
            current = map;
            currentImpl = impl;
            currentMode = mode;
            currentSizing = z;
            dirty = false;
        }
        return current;
    }

    private void drop() {
        MapUnderTest old = current;
        current = null;
        if (old != null) old.close();
    }

    /**
     * Puts {@code z.entries()} distinct keys chosen uniformly from {@code [0, z.range())}, in
     * random order, with putIfAbsent from this thread (the paper's ingestion stage).
     */
    static void fill(MapUnderTest map, MapSizing z, long seed) {
        int range = z.range();
        int entries = z.entries();
        int[] ids = new int[range];
        for (int i = 0; i < range; i++) ids[i] = i;
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < entries; i++) { // the first `entries` of a random permutation, in random order
            int j = i + r.nextInt(range - i);
            int x = ids[i];
            ids[i] = ids[j];
            ids[j] = x;
        }
        Probe p = new Probe(z.keyBytes(), z.valueBytes());
        for (int i = 0; i < entries; i++) {
            if (!map.putIfAbsent(p.key(ids[i]))) throw new IllegalStateException("fill key " + ids[i] + " was present");
        }
    }
}
