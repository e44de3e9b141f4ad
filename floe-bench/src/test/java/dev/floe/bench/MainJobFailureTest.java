package dev.floe.bench;

import dev.floe.bench.harness.BenchmarkException;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The main job runs the suites one after another: a suite that fails must not take the suites
 * that finished with it (before, the first failure returned at once and no report was written).
 */
class MainJobFailureTest {

    @Test
    void aFailingSuiteIsNamedAndTheOthersStillRunAndReport() {
        List<BenchCommand.Planned> plan = new ArrayList<>();
        for (Suite s : SuiteRegistry.all()) {
            plan.add(new BenchCommand.Planned(s, new Settings(Mode.QUICK, 0.05, 0.0, 1, List.of(1), s.impls())));
        }
        String failing = plan.get(1).suite().name();
        List<String> ran = new ArrayList<>();
        StringWriter out = new StringWriter();
        List<String> failed = new ArrayList<>();
        List<SuiteReport> reports = BenchCommand.runSuites(plan, (suite, settings) -> {
            ran.add(suite.name());
            if (suite.name().equals(failing)) throw new BenchmarkException("worker died");
            return new SuiteReport(suite.name(), Map.of("mode", "quick", "duration_s", 0.05, "warmup_s", 0.0, "runs", 1),
                    List.of(), List.of(), List.of());
        }, new PrintWriter(out), failed);

        assertEquals(SuiteRegistry.all().size(), ran.size(), "every suite ran, those after the failure too");
        assertEquals(List.of(failing), failed);
        assertEquals(SuiteRegistry.all().size() - 1, reports.size());
        assertTrue(reports.stream().noneMatch(r -> r.suite().equals(failing)));
        assertTrue(out.toString().contains("== " + plan.getLast().suite().name()), "the last suite's summary was printed");
    }
    @Test
    void aSuiteThatThrowsUnexpectedlyIsAFailedSuiteNotTheEndOfTheJob() {
        List<BenchCommand.Planned> plan = new ArrayList<>();
        for (Suite s : SuiteRegistry.all()) {
            plan.add(new BenchCommand.Planned(s, new Settings(Mode.QUICK, 0.05, 0.0, 1, List.of(1), s.impls())));
        }
        String failing = plan.get(0).suite().name();
        List<String> failed = new ArrayList<>();
        List<SuiteReport> reports = BenchCommand.runSuites(plan, (suite, settings) -> {
            if (suite.name().equals(failing)) throw new IllegalStateException("a defect in the suite");
            return new SuiteReport(suite.name(), Map.of("mode", "quick", "duration_s", 0.05, "warmup_s", 0.0, "runs", 1),
                    List.of(), List.of(), List.of());
        }, new PrintWriter(new StringWriter()), failed);

        assertEquals(List.of(failing), failed);
        assertEquals(SuiteRegistry.all().size() - 1, reports.size(), "the suites after it still ran");
    }
}
