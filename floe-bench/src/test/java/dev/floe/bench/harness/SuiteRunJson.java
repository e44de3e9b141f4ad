package dev.floe.bench.harness;

import java.util.List;
import java.util.Map;

/**
 * What the suite-run tests share: one real run of a suite through worker JVMs (no progress
 * output), written into a report and read back, so that the tests check what a reader of the
 * JSON file gets.
 */
public final class SuiteRunJson {

    private SuiteRunJson() {}

    /** Runs {@code suite} with {@code settings} and returns the suite's object of the report's JSON. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> run(Suite suite, Settings settings) throws BenchmarkException {
        SuiteReport report = new SuiteRunner(Progress.silent()).run(suite, settings);
        Report doc = new Report("test", "none", "2025-01-01T00:00:00Z", Machine.current(), List.of(report), null);
        Map<String, Object> root = Json.parseObject(Json.pretty(doc.toJson()));
        return ((List<Map<String, Object>>) root.get("suites")).getFirst();
    }
}
