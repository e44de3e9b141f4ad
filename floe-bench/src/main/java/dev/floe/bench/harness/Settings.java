package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The resolved parameters of one suite run: the suite's defaults for the mode, overridden by
 * whatever options were given, validated.
 *
 * @param impls    implementations to run, in the suite's display order
 * @param variants what the runner schedules: every implementation in every {@link JvmConfig}
 *                 of {@code --gc}, {@code --heap} and {@code --offheap} (just {@code impls}
 *                 under their own names when none is given)
 * @param runsGiven whether {@code runs} came from {@code --runs} (a suite may lower its own
 *                 default for a cell, never the number the user asked for)
 */
public record Settings(Mode mode, double durationSeconds, double warmupSeconds, int runs,
                       List<Integer> threads, List<String> impls, List<Variant> variants, boolean runsGiven) {

    /**
     * Largest thread count a cell takes: each is a platform thread in the worker JVM, and far past
     * the core count a cell measures the scheduler; a mistyped 100000 would exhaust the host.
     */
    public static final int MAX_THREADS = 1024;

    public Settings {
        threads = List.copyOf(threads);
        impls = List.copyOf(impls);
        variants = List.copyOf(variants);
        if (!(durationSeconds > 0) || Double.isInfinite(durationSeconds)) {
            throw new IllegalArgumentException("--duration must be a positive number of seconds: " + durationSeconds);
        }
        if (!(warmupSeconds >= 0) || Double.isInfinite(warmupSeconds)) {
            throw new IllegalArgumentException("--warmup must be a number of seconds, 0 or more: " + warmupSeconds);
        }
        if (runs < 1) throw new IllegalArgumentException("--runs must be at least 1: " + runs);
        if (threads.isEmpty()) throw new IllegalArgumentException("--threads needs at least one value");
        for (int t : threads) {
            if (t < 1) throw new IllegalArgumentException("--threads values must be at least 1: " + t);
            if (t > MAX_THREADS) {
                throw new IllegalArgumentException("--threads values must be at most " + MAX_THREADS + " (one platform "
                        + "thread each, started in every worker JVM): " + t);
            }
        }
        if (impls.isEmpty()) throw new IllegalArgumentException("no implementation selected");
        if (variants.isEmpty()) throw new IllegalArgumentException("no implementation runs under the selected --gc");
        for (Variant v : variants) {
            if (!impls.contains(v.impl())) throw new IllegalArgumentException("variant of an unselected implementation: " + v);
        }
        if (variants.stream().map(Variant::label).distinct().count() != variants.size()) {
            throw new IllegalArgumentException("variant labels are not unique: " + variants);
        }
    }

    /** Settings with the suite's own number of runs ({@code --runs} not given). */
    public Settings(Mode mode, double durationSeconds, double warmupSeconds, int runs, List<Integer> threads,
                    List<String> impls, List<Variant> variants) {
        this(mode, durationSeconds, warmupSeconds, runs, threads, impls, variants, false);
    }

    /** Settings in the suite's own JVM configuration: each implementation under its own name. */
    public Settings(Mode mode, double durationSeconds, double warmupSeconds, int runs, List<Integer> threads,
                    List<String> impls) {
        this(mode, durationSeconds, warmupSeconds, runs, threads, impls, impls.stream().map(Variant::of).toList());
    }

    /**
     * The given options the suite cannot honour, with the reason: its own
     * {@link Suite#unusableOptions}, and {@code --gc}, {@code --heap} and {@code --offheap} for a
     * suite that does not compare collectors or budgets.
     */
    public static Map<String, String> unusableOptions(Suite suite, BenchOptions o) {
        Map<String, String> unusable = new LinkedHashMap<>(suite.unusableOptions(o));
        if (!suite.comparesCollectors()) {
            String why = "its implementations do not depend on the collector or a heap / off-heap split";
            if (o.gcs() != null) unusable.put("--gc", why);
            if (o.heaps() != null) unusable.put("--heap", why);
            if (o.offheaps() != null) unusable.put("--offheap", why);
        }
        return unusable;
    }

    /**
     * The suite's defaults for the options' mode, overridden by the given options.
     *
     * @throws IllegalArgumentException for an implementation the suite does not have, an
     *                                  out-of-range value, or an option the suite cannot honour
     *                                  ({@link Suite#unusableOptions})
     */
    public static Settings resolve(Suite suite, BenchOptions o) {
        Map<String, String> unusable = unusableOptions(suite, o);
        if (!unusable.isEmpty()) {
            List<String> why = new ArrayList<>();
            unusable.forEach((option, reason) -> why.add("suite " + suite.name() + " does not take " + option + ": " + reason));
            throw new IllegalArgumentException(String.join("; ", why));
        }
        Settings d = suite.defaults(o.modeOrQuick());
        List<String> impls = d.impls();
        if (o.impls() != null) {
            for (String name : o.impls()) {
                if (!suite.impls().contains(name)) {
                    throw new IllegalArgumentException("suite " + suite.name() + " has no implementation '"
                            + name + "'; choose from " + String.join(", ", suite.impls()));
                }
            }
            impls = new ArrayList<>(suite.impls());
            impls.retainAll(o.impls());
        }
        List<JvmConfig> configs = JvmConfig.product(o.gcs(), o.heaps(), o.offheaps());
        Settings s = new Settings(d.mode(),
                o.duration() != null ? o.duration() : d.durationSeconds(),
                o.warmup() != null ? o.warmup() : d.warmupSeconds(),
                o.runs() != null ? o.runs() : d.runs(),
                o.threads() != null ? o.threads().stream().distinct().toList() : d.threads(),
                impls, variants(suite, impls, configs), o.runs() != null);
        refuseBudgetsBeyond(Machine.physicalMemoryBytes(), suite, s);
        return s;
    }

    /**
     * Refuses {@code --heap} / {@code --offheap} values whose worker JVMs cannot all be resident
     * at once on a machine with {@code machineBytes} of RAM (0: unknown, nothing refused). A
     * suite's shared workers, one per variant, live for the whole suite, and one fresh JVM at a
     * time runs its fresh-JVM cells; each takes the heap plus the off-heap budget given (a budget
     * left to the suite counts 0, so what a suite sizes itself is never refused). Past physical
     * memory the pre-touched heaps would swap, or the kernel would kill a worker midway.
     *
     * @throws IllegalArgumentException naming the options, the workers and both sizes
     */
    static void refuseBudgetsBeyond(long machineBytes, Suite suite, Settings s) {
        if (machineBytes <= 0 || !s.configured()) return;
        boolean shared = false, fresh = false;
        for (Cell c : suite.cells(s)) {
            if (c.isolation() == Isolation.SHARED_WORKER) shared = true;
            else fresh = true;
        }
        long sharedBytes = 0, largest = 0;
        for (Variant v : s.variants()) {
            long bytes = v.jvm().heapBytes() + v.jvm().offheapBytes(); // each below 2^63 / 2^20 (parseSize)
            sharedBytes = sharedBytes > Long.MAX_VALUE - bytes ? Long.MAX_VALUE : sharedBytes + bytes;
            largest = Math.max(largest, bytes);
        }
        long needed = (shared ? sharedBytes : 0);
        if (fresh) needed = needed > Long.MAX_VALUE - largest ? Long.MAX_VALUE : needed + largest;
        if (needed <= machineBytes) return;
        String workers = shared && fresh
                ? "keeps " + s.variants().size() + " worker JVMs alive and starts a fresh JVM per run beside them"
                : shared ? "keeps " + s.variants().size() + " worker JVMs alive at once" : "runs each measurement in a fresh JVM";
        throw new IllegalArgumentException("--heap / --offheap: suite " + suite.name() + " " + workers + ", which would take "
                + Units.bytes(needed) + " of RAM at peak (heap + off-heap per JVM), more than this machine's "
                + Units.bytes(machineBytes) + "; give smaller budgets, or fewer implementations (--impl) or values");
    }

    /**
     * Every implementation in every configuration, configurations outermost, except a
     * collector baseline in a configuration of another collector. Labels carry the parts of the
     * configuration that vary (a baseline's collector is already in its name).
     */
    static List<Variant> variants(Suite suite, List<String> impls, List<JvmConfig> configs) {
        boolean gc = configs.stream().map(JvmConfig::collector).distinct().count() > 1;
        boolean heap = configs.stream().mapToLong(JvmConfig::heapBytes).distinct().count() > 1;
        boolean offheap = configs.stream().mapToLong(JvmConfig::offheapBytes).distinct().count() > 1;
        List<Variant> out = new ArrayList<>();
        for (JvmConfig c : configs) {
            for (String impl : impls) {
                Optional<Collector> own = suite.collectorOf(impl);
                if (own.isPresent() && c.collector() != null && own.get() != c.collector()) continue;
                String suffix = c.label(gc && own.isEmpty(), heap, offheap);
                out.add(new Variant(suffix.isEmpty() ? impl : impl + "@" + suffix, impl, c));
            }
        }
        return out;
    }

    /**
     * The budgets every variant shares ({@link JvmConfig} without its collector), or the suite's
     * own when they differ: what a suite's {@code config} describes its sizes by (each variant's
     * own configuration is in {@code jvm_configs}).
     */
    public JvmConfig commonBudgets() {
        List<JvmConfig> distinct = variants.stream().map(v -> new JvmConfig(null, v.jvm().heapBytes(), v.jvm().offheapBytes()))
                .distinct().toList();
        return distinct.size() == 1 ? distinct.get(0) : JvmConfig.DEFAULT;
    }

    /** Whether any variant runs in a configuration other than the suite's own. */
    public boolean configured() {
        return variants.stream().anyMatch(v -> !v.jvm().equals(JvmConfig.DEFAULT));
    }

    /** The common part of a suite's {@code config} object. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode.label());
        m.put("duration_s", durationSeconds);
        m.put("warmup_s", warmupSeconds);
        m.put("runs", runs);
        m.put("threads", threads);
        m.put("impls", impls);
        if (configured()) {
            Map<String, Object> jvm = new LinkedHashMap<>();
            for (Variant v : variants) jvm.put(v.label(), v.jvm().toJson());
            m.put("jvm_configs", jvm);
        }
        return m;
    }

    /** Thread counts for full mode: 1, 2, 4, … up to the core count (at least 1 and 2). */
    public static List<Integer> fullThreads() {
        List<Integer> t = new ArrayList<>(List.of(1, 2));
        for (int n = 4; n <= Runtime.getRuntime().availableProcessors(); n *= 2) t.add(n);
        return t;
    }
}
