package dev.floe.bench.lockfree;

import dev.floe.bench.harness.Cell;
import dev.floe.bench.harness.Comparison;
import dev.floe.bench.harness.Isolation;
import dev.floe.bench.harness.JitWarmUp;
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
import dev.floe.lockfree.LockFreeLongMap;
import dev.floe.lockfree.Reclamation;
import dev.floe.memory.FloeAllocator;
import dev.floe.memory.MemoryStats;
import dev.floe.memory.ReleaseMethod;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code lockfree} suite: the LRMalloc/OA paper's evaluation (section 6) on this machine.
 * A Harris–Michael list and Michael hash tables with off-heap nodes under four reclamation
 * schemes: {@code oa-bit}, {@code oa-ver}, {@code nr} (never free) and {@code floe-ebr}.
 *
 * <p>Workloads ({@link LockfreeWorkload}): {@code list-5k-*}, {@code hash-10k-*} and
 * {@code hash-1m-*} (100,000 keys in quick mode), {@code -update} = 50/50 insert/remove,
 * {@code -mixed} = 50/25/25 search/insert/remove; and {@code release} ({@link ReleaseRun}): RSS
 * after deleting every key of a filled table. Each worker JVM hosts one implementation and keeps
 * one pre-filled structure per workload across its runs and thread counts.
 *
 * <p>Ratios: {@code oa-ver} against every other implementation and {@code oa-bit} against
 * {@code nr}, on {@code ops_per_s}; on {@code release} also on retained RSS. Goals
 * ({@link #targets}): oa-ver ≥ oa-bit on the list workloads, oa-ver ≥ 0.9 × nr on the hash
 * workloads, and RSS after the delete at most 1.1 × RSS before the fill for oa-bit, oa-ver and
 * floe-ebr.
 */
public final class LockfreeSuite implements Suite {
    static final String RELEASE = "release";
    static final List<String> IMPLS = List.of("oa-bit", "oa-ver", "nr", "floe-ebr");
    /** RSS kept after the delete (after − before): lower is better; noise floor 1 MiB. */
    static final Metric RETAINED_RSS = Metric.lowerIsBetter("rss_bytes", 1 << 20);
    private static final double HASH_VS_NR = 0.9;
    private static final double RELEASE_SLACK = 1.1;

    @Override
    public String name() {
        return "lockfree";
    }

    @Override
    public String description() {
        return "off-heap lock-free list and hash table: OA-BIT / OA-VER vs nr and floe-ebr, memory given back";
    }

    @Override
    public List<String> impls() {
        return IMPLS;
    }

    @Override
    public Settings defaults(Mode mode) {
        if (mode == Mode.FULL) return new Settings(mode, 5, 2, 5, List.of(1, 2), impls());
        return new Settings(mode, 0.15, 0.15, 3, List.of(1, 2), impls());
    }

    @Override
    public Map<String, Object> config(Settings s) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (LockfreeWorkload w : LockfreeWorkload.TIMED) m.put(w.name().replace('-', '_') + "_keys", w.size(s.mode()));
        m.put("key_range", "2 x keys, uniform; table pre-filled with keys, so inserts = removes");
        m.put("hash_load_factor", 0.75);
        m.put("quick_notes", "quick mode: hash-1m-* use " + LockfreeWorkload.QUICK_1M_KEYS
                + " keys (full: 1,000,000), 0.15 s runs after 0.15 s warm-up; release: 500,000 keys (full: 1,000,000)");
        m.put("node_bytes", 32);
        m.put("limbo_capacity", Reclamation.DEFAULT_OA_LIMBO_CAPACITY);
        m.put("limbo_capacity_ebr", Reclamation.DEFAULT_LIMBO_CAPACITY);
        m.put("release_keys", ReleaseRun.keys(s.mode()));
        m.put("release_notes", "1 thread: fill a hash table, delete every key, reclaimIdle + trim; rss_bytes = "
                + "rss_after - rss_before; oa-ver also repeats it on a SHARED_FRAME allocator (extra sf_*) and "
                + "times release and reuse of " + (ReleaseMethodCost.BYTES >> 20) + " MiB of 1 KiB blocks with "
                + "each method, alternating, median of 5 (extra cost_*)");
        m.put("isolation", "one worker JVM per implementation (-Xms=-Xmx=512m, pre-touched heap); "
                + "one pre-filled structure per workload, reused across runs and thread counts");
        m.put("jit_warmup", "once per worker before its first cell: rounds of the list and 10k-table workloads, "
                + jitWarmupRoundSeconds(s.mode()) + " s each, every other round (the first included) with two threads "
                + "and then also on a " + CONTENDED_KEYS + "-key structure of the same kind (contended paths), until "
                + "two rounds compiled less than "
                + JitWarmUp.QUIET_COMPILE_MS + " ms (at least " + jitWarmupSeconds(s.mode()) + " s, at most "
                + jitWarmupMaxSeconds(s.mode()) + " s); extra.jit_ms: compilation during the measured run (a "
                + "JitWarmUp.cell warm-up per cell was tried: two invocations, no steadier ratios, not kept)");
        return m;
    }

    @Override
    public List<Cell> cells(Settings s) {
        List<Cell> cells = new ArrayList<>();
        for (LockfreeWorkload w : LockfreeWorkload.TIMED) {
            for (int t : s.threads()) cells.add(new Cell(w.name(), t, Isolation.SHARED_WORKER));
        }
        cells.add(new Cell(RELEASE, 1, Isolation.SHARED_WORKER));
        return cells;
    }

    @Override
    public List<Comparison> comparisons(Cell cell, List<String> impls) {
        List<Comparison> out = new ArrayList<>();
        boolean release = cell.workload().equals(RELEASE);
        if (impls.contains("oa-ver")) {
            for (String vs : impls) {
                if (vs.equals("oa-ver")) continue;
                out.add(new Comparison("oa-ver", vs, Metric.OPS_PER_S));
                if (release) out.add(new Comparison("oa-ver", vs, RETAINED_RSS));
            }
        }
        if (impls.contains("oa-bit") && impls.contains("nr")) {
            out.add(new Comparison("oa-bit", "nr", Metric.OPS_PER_S));
            if (release) out.add(new Comparison("oa-bit", "nr", RETAINED_RSS));
        }
        return out;
    }

    @Override
    public List<String> jvmArgs(String impl) {
        return List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch");
    }

    /** Rounds of this worker's JIT warm-up ({@link #warmUpJit}); 0 until it ran. */
    private int jitWarmupRounds;

    /**
     * Once per worker JVM, before its first measured cell: rounds in which the list and the
     * 10,000-key table (the code every workload runs) take updates and then the mixed
     * operations for {@link #jitWarmupRoundSeconds} each, until the JIT has gone quiet
     * ({@link JitWarmUp}; at least {@link #jitWarmupSeconds}, at most
     * {@link #jitWarmupMaxSeconds}). The cells' own 0.15 s warm-ups are too short for C2 to
     * finish the walk and the reclamation paths, so without it the first cells of each worker
     * measured the compilers, differently for each implementation.
     *
     * <p>Every other round, the first included, runs two threads ({@link JitWarmUp#roundThreads})
     * and then also runs the workload's mix on a small structure of the same kind
     * ({@link #CONTENDED_KEYS} keys, a separate allocator) where the two threads collide all the
     * time. The paths only contention takes (a lost CAS, a restart after a warning) are rare on
     * the full structures: C2 compiled them as uncommon traps, and their first use in a measured
     * two-thread run deoptimized {@code insert} or {@code remove} and recompiled it there, for
     * every implementation alike.
     * In a standalone replay of this warm-up followed by the list and 10k-table cells (one JVM per
     * implementation, {@code -XX:+PrintCompilation}), the two-thread phases saw 2–4 such traps
     * with two-thread rounds alone and 0–1 with the contended structure too.
     */
    private void warmUpJit(Mode mode, String impl, int threads) throws Exception {
        double each = jitWarmupRoundSeconds(mode);
        try (FloeAllocator contendedAlloc = FloeAllocator.builder().name("lockfree-jit-warmup").jmx(false).build()) {
            Reclamation contendedRec = Structures.scheme(impl, contendedAlloc);
            jitWarmupRounds = JitWarmUp.run(jitWarmupSeconds(mode), jitWarmupMaxSeconds(mode), round -> {
                int t = JitWarmUp.roundThreads(round, threads);
                for (LockfreeWorkload w : LockfreeWorkload.TIMED) {
                    if (w.size(mode) > WARMUP_MAX_KEYS) continue; // the large tables run the same code
                    LockFreeLongMap map = Structures.get(impl, w, mode);
                    TimedRun.run(tasks(map, 2 * w.size(mode), w, t, 3 + round), each, () -> null);
                    if (t < 2) continue;
                    try (LockFreeLongMap contended = Structures.empty(w, contendedRec, CONTENDED_KEYS)) {
                        TimedRun.run(tasks(contended, CONTENDED_KEYS, w, t, 5 + round), each, () -> null);
                    }
                }
            });
        }
    }

    /** Structures larger than this are left out of the JIT warm-up (their fill takes long). */
    private static final long WARMUP_MAX_KEYS = 10_000;

    /** Key range of the small structures the two-thread warm-up rounds contend on. */
    private static final long CONTENDED_KEYS = 32;

    /** Least seconds of the per-worker JIT warm-up: 1 in quick mode, 3 in full mode. */
    static double jitWarmupSeconds(Mode mode) {
        return mode == Mode.QUICK ? 1.0 : 3.0;
    }

    /** Most seconds of the per-worker JIT warm-up, whatever the JIT does: 3 in quick mode, 15 in full mode. */
    static double jitWarmupMaxSeconds(Mode mode) {
        return mode == Mode.QUICK ? 3.0 : 15.0;
    }

    /** Seconds each warmed workload runs in one round: 0.05 in quick mode, 0.25 in full mode. */
    static double jitWarmupRoundSeconds(Mode mode) {
        return mode == Mode.QUICK ? 0.05 : 0.25;
    }

    @Override
    public Sample measure(Trial trial) throws Exception {
        if (trial.workload().equals(RELEASE)) return release(trial);
        if (jitWarmupRounds == 0) warmUpJit(trial.mode(), trial.impl(), trial.threads());
        LockfreeWorkload w = LockfreeWorkload.byName(trial.workload());
        LockFreeLongMap map = Structures.get(trial.impl(), w, trial.mode());
        long range = 2 * w.size(trial.mode());
        if (trial.warmupSeconds() > 0) {
            TimedRun.run(tasks(map, range, w, trial.threads(), 1), trial.warmupSeconds(), () -> null);
        }
        Reclamation.Stats before = map.reclamation().stats();
        FloeAllocator alloc = Structures.allocator();
        long jitBefore = JitWarmUp.compileMillis();
        TimedRun.Outcome o = TimedRun.run(tasks(map, range, w, trial.threads(), 2), trial.durationSeconds(), () -> {
            MemoryStats ms = alloc.stats();
            return MemorySnapshot.capture(ms.committedBytes(), ms.liveBytes());
        });
        long jitAfter = JitWarmUp.compileMillis();
        Reclamation.Stats after = map.reclamation().stats();
        Map<String, Double> extra = new LinkedHashMap<>();
        if (jitBefore >= 0) extra.put("jit_ms", (double) (jitAfter - jitBefore));
        extra.put("keys", (double) w.size(trial.mode()));
        extra.put("restarts", (double) (after.restarts() - before.restarts()));
        extra.put("warnings", (double) (after.warnings() - before.warnings()));
        extra.put("reclaims", (double) (after.reclaims() - before.reclaims()));
        extra.put("freed", (double) (after.freed() - before.freed()));
        extra.put("in_limbo", (double) after.inLimbo());
        extra.put("incarnation_mismatches", (double) map.incarnationMismatches());
        extra.put("jit_warmup_rounds", (double) jitWarmupRounds);
        return new Sample(Map.of(Metric.OPS_PER_S.name(), o.opsPerSecond()), o.memory(), extra);
    }

    private static List<OpTask> tasks(LockFreeLongMap map, long range, LockfreeWorkload w, int threads, int salt) {
        List<OpTask> tasks = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            tasks.add(new OpTask(map, range, w.searchPercent(), System.nanoTime() * 31 + i * 1009L + salt));
        }
        return tasks;
    }

    private static Sample release(Trial trial) {
        long keys = ReleaseRun.keys(trial.mode());
        ReleaseRun.Outcome o = ReleaseRun.run(trial.impl(), keys, ReleaseMethod.MADVISE);
        double ops = 2.0 * keys * 1e9 / (o.fillNanos() + o.deleteNanos());
        Map<String, Double> extra = new LinkedHashMap<>();
        extra.put("keys", (double) keys);
        extra.put("rss_before", (double) o.rssBefore());
        extra.put("rss_peak", (double) o.rssPeak());
        extra.put("rss_after", (double) o.rssAfter());
        extra.put("rss_after_before", o.rssAfter() / (double) o.rssBefore()); // per run: the goal reads its median
        extra.put("kept_share_of_growth", (o.rssAfter() - o.rssBefore()) / (double) Math.max(1, o.rssPeak() - o.rssBefore()));
        extra.put("delete_ms", o.deleteNanos() / 1e6);
        extra.put("superblock_releases", (double) o.releases());
        extra.put("freed", (double) o.stats().freed());
        if (trial.impl().equals("oa-ver")) {
            ReleaseRun.Outcome sf = ReleaseRun.run(trial.impl(), keys, ReleaseMethod.SHARED_FRAME);
            extra.put("sf_rss_before", (double) sf.rssBefore());
            extra.put("sf_rss_peak", (double) sf.rssPeak());
            extra.put("sf_rss_after", (double) sf.rssAfter());
            extra.put("sf_delete_ms", sf.deleteNanos() / 1e6);
            extra.put("sf_superblock_releases", (double) sf.releases());
            Map<ReleaseMethod, ReleaseMethodCost.Cost> cost = ReleaseMethodCost.measure();
            ReleaseMethodCost.Cost md = cost.get(ReleaseMethod.MADVISE);
            ReleaseMethodCost.Cost fr = cost.get(ReleaseMethod.SHARED_FRAME);
            extra.put("cost_madvise_release_ms", md.releaseMs());
            extra.put("cost_madvise_reuse_ms", md.reuseMs());
            extra.put("cost_sf_release_ms", fr.releaseMs());
            extra.put("cost_sf_reuse_ms", fr.reuseMs());
            extra.put("cost_superblocks", (double) md.releases());
        }
        MemorySnapshot mem = new MemorySnapshot(o.rssAfter(), Runtime.getRuntime().totalMemory()
                - Runtime.getRuntime().freeMemory(), 0, 0);
        return new Sample(Map.of(Metric.OPS_PER_S.name(), ops, RETAINED_RSS.name(),
                (double) (o.rssAfter() - o.rssBefore())), mem, extra);
    }

    @Override
    public List<TargetCheck> targets(SuiteReport report) {
        List<TargetCheck> checks = new ArrayList<>();
        for (Ratio r : report.ratios()) {
            if (!r.metric().equals(Metric.OPS_PER_S.name()) || !r.impl().equals("oa-ver")) continue;
            if (r.workload().startsWith("list-") && r.vs().equals("oa-bit")) {
                checks.add(new TargetCheck("list-oa-ver-vs-oa-bit", "oa-ver >= oa-bit ops/s on the list",
                        r.workload(), r.threads(), "oa-ver", "oa-bit", "ops_per_s_ratio", r.medianRatio(), ">=", 1.0));
            }
            if (r.workload().startsWith("hash-") && r.vs().equals("nr")) {
                checks.add(new TargetCheck("hash-oa-ver-vs-nr", "oa-ver within 10% of nr ops/s on hash tables",
                        r.workload(), r.threads(), "oa-ver", "nr", "ops_per_s_ratio", r.medianRatio(), ">=", HASH_VS_NR));
            }
        }
        for (String impl : List.of("oa-bit", "oa-ver", "floe-ebr")) {
            report.result(RELEASE, 1, impl).ifPresent(r -> {
                checks.add(new TargetCheck("release-rss",
                        impl + " RSS after deleting everything <= 1.1 x RSS before the fill", RELEASE, 1, impl, null,
                        "rss_after_before_ratio", r.extra().get("rss_after_before"), "<=",
                        RELEASE_SLACK));
                // the JVM's own RSS dwarfs the table, so also: at most 10% of the growth is kept
                checks.add(new TargetCheck("release-rss-growth",
                        impl + " keeps <= 10% of the fill's RSS growth after deleting everything", RELEASE, 1, impl,
                        null, "kept_share_of_growth_ratio", r.extra().get("kept_share_of_growth"), "<=",
                        RELEASE_SLACK - 1));
            });
        }
        return checks;
    }
}
