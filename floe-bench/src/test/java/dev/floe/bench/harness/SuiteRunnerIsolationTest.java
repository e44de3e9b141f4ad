package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which worker JVM runs which trial: a suite whose trials report the process id of the JVM they
 * ran in (as their ops/s) and how many workers of this suite were alive at that moment, run
 * through real worker JVMs.
 */
class SuiteRunnerIsolationTest {

    /** Reports the worker's pid as ops/s and its live sibling workers as {@code extra.workers}. */
    public static final class PidSuite implements Suite {
        @Override
        public String name() {
            return "pid";
        }

        @Override
        public String description() {
            return "reports the worker's process id";
        }

        @Override
        public List<String> impls() {
            return List.of("x", "y");
        }

        @Override
        public Settings defaults(Mode mode) {
            return new Settings(mode, 0.01, 0, 2, List.of(1, 2), impls());
        }

        @Override
        public Map<String, Object> config(Settings settings) {
            return Map.of();
        }

        @Override
        public List<Cell> cells(Settings settings) {
            return List.of(
                    new Cell("a", 1, Isolation.WORKLOAD_WORKER), new Cell("a", 2, Isolation.WORKLOAD_WORKER),
                    new Cell("b", 1, Isolation.WORKLOAD_WORKER),
                    new Cell("c", 1, Isolation.SHARED_WORKER), new Cell("d", 1, Isolation.SHARED_WORKER),
                    new Cell("e", 1, Isolation.WORKLOAD_WORKER));
        }

        @Override
        public List<Comparison> comparisons(Cell cell, List<String> impls) {
            return List.of();
        }

        @Override
        public Sample measure(Trial trial) {
            long workers = ProcessHandle.current().parent().map(p -> p.children()
                    .filter(c -> c.info().commandLine().orElse("").contains(PidSuite.class.getName()))
                    .count()).orElse(-1L);
            return new Sample(Map.of(Metric.OPS_PER_S.name(), (double) ProcessHandle.current().pid()),
                    MemorySnapshot.capture(0, 0), Map.of("workers", (double) workers));
        }
    }

    @Test
    void workloadWorkersAreOnePerWorkloadAndSharedWorkersOnePerImplementation() throws Exception {
        PidSuite suite = new PidSuite();
        SuiteReport report = new SuiteRunner(Progress.silent()).run(suite, suite.defaults(Mode.QUICK));
        Map<String, Long> pid = new HashMap<>();
        for (Result r : report.results()) {
            assertEquals(r.opsPerSecond().min(), r.opsPerSecond().max(), "both runs of a cell in one JVM: " + r);
            double workers = r.extra().get("workers"); // the median of the two runs'
            assertTrue(workers >= 1 && workers <= 2, "at most one worker per implementation alive at once: " + r);
            pid.put(r.impl() + " " + r.workload() + " " + r.threads(), (long) r.opsPerSecond().median());
        }
        for (String impl : List.of("x", "y")) {
            assertEquals(pid.get(impl + " a 1"), pid.get(impl + " a 2"), "a workload's thread counts share its worker");
            assertNotEquals(pid.get(impl + " a 1"), pid.get(impl + " b 1"), "another workload, another worker");
            assertEquals(pid.get(impl + " c 1"), pid.get(impl + " d 1"), "shared cells share one worker");
            assertNotEquals(pid.get(impl + " b 1"), pid.get(impl + " c 1"));
            assertNotEquals(pid.get(impl + " c 1"), pid.get(impl + " e 1"));
        }
        assertNotEquals(pid.get("x a 1"), pid.get("y a 1"), "implementations never share a worker");
    }
}
