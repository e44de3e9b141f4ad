package dev.floe.bench.report;

import dev.floe.bench.harness.HostActivity;
import dev.floe.bench.harness.Json;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Summary;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A benchmark run as the report reads it: the JSON document of BENCHMARKS.md (what
 * {@code results.json} holds), typed. Reports are rendered from this form rather than from the
 * harness objects so that a file from an earlier run (or another machine) renders and compares
 * exactly like the run that just finished, and so that whatever a suite puts into
 * {@code extra} (numbers, or arrays of numbers such as {@code rss_series}) reaches the report.
 *
 * <p>Reading is lenient where the contract lets suites add things (unknown fields are kept in
 * {@code config} and {@code extra}, or ignored) and strict where the report depends on a field
 * ({@code suite}, {@code workload}, {@code impl}, {@code threads}, {@code ops_per_s}).
 */
public record RunData(String floeVersion, String gitCommit, String started, Machine machine,
                      List<SuiteData> suites, HostActivity host) {

    public RunData {
        suites = List.copyOf(suites);
    }

    /** One suite's results, ratios and goals. */
    public record SuiteData(String suite, Map<String, Object> config, List<ResultData> results,
                            List<RatioData> ratios, List<TargetData> targets) {
        public SuiteData {
            config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
            results = List.copyOf(results);
            ratios = List.copyOf(ratios);
            targets = List.copyOf(targets);
        }
    }

    /**
     * One implementation in one cell.
     *
     * @param extra the {@code extra} object as read: {@code Long}/{@code Double} numbers, lists
     *              of numbers (time series) or anything else a suite put there
     */
    public record ResultData(String workload, String impl, int threads, Summary opsPerSecond,
                             MemorySnapshot memory, Map<String, Object> extra) {
        public ResultData {
            extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
        }

        /** What identifies a result across runs: workload, threads and implementation. */
        public String key() {
            return workload + " t=" + threads + " " + impl;
        }

        /** The extras that are single numbers. */
        public Map<String, Double> scalarExtras() {
            Map<String, Double> m = new LinkedHashMap<>();
            extra.forEach((k, v) -> {
                if (v instanceof Number n) m.put(k, n.doubleValue());
            });
            return m;
        }

        /** The extras that are arrays of at least two numbers: time series to draw. */
        public Map<String, double[]> seriesExtras() {
            Map<String, double[]> m = new LinkedHashMap<>();
            extra.forEach((k, v) -> {
                if (v instanceof List<?> list && list.size() >= 2 && list.stream().allMatch(Number.class::isInstance)) {
                    m.put(k, list.stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray());
                }
            });
            return m;
        }
    }

    /** One ratio: above 1 means {@code impl} did better than {@code vs} on {@code metric}. */
    public record RatioData(String workload, int threads, String impl, String vs, String metric, double medianRatio) {}

    /** One goal and its verdict, as the run recorded it. */
    public record TargetData(String target, String description, String workload, int threads, String impl,
                             String vs, String metric, double observed, String comparison, double threshold,
                             boolean met) {

        /** Whether this goal is about {@code r} (same cell and pair, metric {@code m} or {@code m_ratio}). */
        public boolean concerns(RatioData r) {
            return r.workload().equals(workload) && r.threads() == threads && r.impl().equals(impl)
                    && r.vs().equals(vs) && (r.metric().equals(metric) || (r.metric() + "_ratio").equals(metric));
        }
    }

    /** Reads a results file ({@code results.json}, {@code --json FILE}). */
    public static RunData read(Path file) throws IOException {
        try {
            return of(Json.parseObject(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException(file + " is not a Floe results file: " + e.getMessage(), e);
        }
    }

    /**
     * The typed form of a parsed document.
     *
     * @throws IllegalArgumentException if a field the report needs is missing or of the wrong kind
     */
    public static RunData of(Map<String, Object> doc) {
        Map<String, Object> m = object(doc.get("machine"), "machine");
        Machine machine = new Machine((int) number(m, "cores"), string(m, "jdk"), string(m, "os"),
                (long) number(m, "memory_bytes"));
        List<SuiteData> suites = new ArrayList<>();
        for (Object s : list(doc.get("suites"), "suites")) suites.add(suite(object(s, "suite")));
        return new RunData(string(doc, "floe_version"), string(doc, "git_commit"), string(doc, "started"), machine,
                suites, host(doc.get("host")));
    }

    /** The suite of this name, if the run has it. */
    public Optional<SuiteData> suite(String name) {
        return suites.stream().filter(s -> s.suite().equals(name)).findFirst();
    }

    /** The same run with only the named suites (for comparing part of a run). */
    public RunData only(Set<String> names) {
        return new RunData(floeVersion, gitCommit, started, machine,
                suites.stream().filter(s -> names.contains(s.suite())).toList(), host);
    }

    /** The optional {@code host} object (files written before it existed have none): null when absent. */
    private static HostActivity host(Object v) {
        if (!(v instanceof Map<?, ?>)) return null;
        Map<String, Object> h = object(v, "host");
        return new HostActivity(number(h, "wall_seconds"), number(h, "other_cpu_share"), number(h, "steal_share"));
    }

    private static SuiteData suite(Map<String, Object> s) {
        String name = required(s, "suite");
        List<ResultData> results = new ArrayList<>();
        for (Object o : list(s.get("results"), name + ".results")) {
            Map<String, Object> r = object(o, name + ".results[]");
            Map<String, Object> ops = object(r.get("ops_per_s"), name + ".results[].ops_per_s");
            Map<String, Object> memory = r.get("memory") instanceof Map<?, ?> ? object(r.get("memory"), "memory") : Map.of();
            Map<String, Object> extra = r.get("extra") instanceof Map<?, ?> ? object(r.get("extra"), "extra") : Map.of();
            results.add(new ResultData(required(r, "workload"), required(r, "impl"), (int) requiredNumber(r, "threads"),
                    new Summary(number(ops, "median"), number(ops, "min"), number(ops, "max")),
                    MemorySnapshot.fromJson(memory), extra));
        }
        List<RatioData> ratios = new ArrayList<>();
        for (Object o : optionalList(s.get("ratios"))) {
            Map<String, Object> q = object(o, name + ".ratios[]");
            ratios.add(new RatioData(required(q, "workload"), (int) requiredNumber(q, "threads"), required(q, "impl"),
                    required(q, "vs"), required(q, "metric"), number(q, "median_ratio")));
        }
        List<TargetData> targets = new ArrayList<>();
        for (Object o : optionalList(s.get("targets"))) {
            Map<String, Object> t = object(o, name + ".targets[]");
            targets.add(new TargetData(string(t, "target"), string(t, "description"), string(t, "workload"),
                    (int) number(t, "threads"), string(t, "impl"), string(t, "vs"), string(t, "metric"),
                    number(t, "observed"), string(t, "comparison"), number(t, "threshold"),
                    Boolean.TRUE.equals(t.get("met"))));
        }
        Map<String, Object> config = s.get("config") instanceof Map<?, ?> ? object(s.get("config"), "config") : Map.of();
        return new SuiteData(name, config, results, ratios, targets);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object v, String what) {
        if (v instanceof Map<?, ?> m) return (Map<String, Object>) m;
        throw new IllegalArgumentException(what + ": expected an object, found " + v);
    }

    private static List<?> list(Object v, String what) {
        if (v instanceof List<?> l) return l;
        throw new IllegalArgumentException(what + ": expected an array, found " + v);
    }

    private static List<?> optionalList(Object v) {
        return v instanceof List<?> l ? l : List.of();
    }

    /** A string field; {@code null} when absent, the text of any other value. */
    private static String string(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? null : v.toString();
    }

    private static String required(Map<String, Object> m, String key) {
        if (m.get(key) instanceof String s) return s;
        throw new IllegalArgumentException("missing string field '" + key + "' in " + m);
    }

    /** A number field; NaN when absent or null (JSON's form of NaN). */
    private static double number(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static double requiredNumber(Map<String, Object> m, String key) {
        if (m.get(key) instanceof Number n) return n.doubleValue();
        throw new IllegalArgumentException("missing number field '" + key + "' in " + m);
    }
}
