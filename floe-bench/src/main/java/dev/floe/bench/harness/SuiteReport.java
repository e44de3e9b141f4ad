package dev.floe.bench.harness;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one suite run produced: its configuration, one {@link Result} per implementation
 * and cell, the {@link Ratio}s it asked for, and the verdicts on its {@link TargetCheck goals}.
 */
public record SuiteReport(String suite, Map<String, Object> config, List<Result> results, List<Ratio> ratios,
                          List<TargetCheck> targets) {

    public SuiteReport {
        config = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(config));
        results = List.copyOf(results);
        ratios = List.copyOf(ratios);
        targets = List.copyOf(targets);
    }

    /** The same report with its goals checked. */
    public SuiteReport withTargets(List<TargetCheck> checks) {
        return new SuiteReport(suite, config, results, ratios, checks);
    }

    /** The result of one implementation in one cell, if it ran. */
    public Optional<Result> result(String workload, int threads, String impl) {
        return results.stream()
                .filter(r -> r.workload().equals(workload) && r.threads() == threads && r.impl().equals(impl))
                .findFirst();
    }

    /** One ratio, if it was computed. */
    public Optional<Ratio> ratio(String workload, int threads, String impl, String vs, String metric) {
        return ratios.stream()
                .filter(r -> r.workload().equals(workload) && r.threads() == threads && r.impl().equals(impl)
                        && r.vs().equals(vs) && r.metric().equals(metric))
                .findFirst();
    }

    /** The suite object of BENCHMARKS.md, plus its {@code targets}. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("suite", suite);
        m.put("config", config);
        m.put("results", results.stream().map(Result::toJson).toList());
        m.put("ratios", ratios.stream().map(Ratio::toJson).toList());
        m.put("targets", targets.stream().map(TargetCheck::toJson).toList());
        return m;
    }
}
