package dev.floe.bench.harness;

import dev.floe.bench.alloc.AllocSuite;
import dev.floe.bench.manual.ManualSuite;
import dev.floe.bench.somar.SomarSuite;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --gc}, {@code --heap}, {@code --offheap}: parsing, configurations, variants and their worker options. */
class JvmConfigTest {

    private static final long MIB = 1L << 20;

    @Test
    void sizesTakeUnitSuffixesAndRoundUpToWholeMebibytes() {
        assertEquals(512 * MIB, JvmConfig.parseSize("512m"));
        assertEquals(512 * MIB, JvmConfig.parseSize("512MiB"));
        assertEquals(2048 * MIB, JvmConfig.parseSize("2G"));
        assertEquals(2048 * MIB, JvmConfig.parseSize("2gb"));
        assertEquals(MIB, JvmConfig.parseSize("1048576"));
        assertEquals(MIB, JvmConfig.parseSize("100k"), "rounded up");
        assertEquals(2 * MIB, JvmConfig.parseSize("1048577"), "rounded up");
        for (String bad : new String[] {"", "m", "-5m", "1.5g", "12x", "99999999999999999999", "9000000000000t"}) {
            assertThrows(IllegalArgumentException.class, () -> JvmConfig.parseSize(bad), bad);
        }
    }

    @Test
    void budgetsBelowTheMinimumOrNotInWholeMebibytesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new JvmConfig(null, 8 * MIB, 0));
        assertThrows(IllegalArgumentException.class, () -> new JvmConfig(null, 0, 8 * MIB));
        assertThrows(IllegalArgumentException.class, () -> new JvmConfig(null, 64 * MIB + 1, 0));
    }

    @Test
    void collectorsAreNamedAsOnTheCommandLine() {
        assertEquals(Collector.ZGC, Collector.byLabel("ZGC"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Collector.byLabel("shenandoah"));
        assertTrue(e.getMessage().contains("g1, zgc, parallel"), e.getMessage());
    }

    @Test
    void theConfigurationsAreEveryCombinationCollectorsOutermost() {
        List<JvmConfig> c = JvmConfig.product(List.of(Collector.G1, Collector.ZGC), List.of(64 * MIB, 128 * MIB), null);
        assertEquals(List.of(new JvmConfig(Collector.G1, 64 * MIB, 0), new JvmConfig(Collector.G1, 128 * MIB, 0),
                new JvmConfig(Collector.ZGC, 64 * MIB, 0), new JvmConfig(Collector.ZGC, 128 * MIB, 0)), c);
        assertEquals(List.of(JvmConfig.DEFAULT), JvmConfig.product(null, null, null));
        assertEquals(1, JvmConfig.product(List.of(Collector.G1, Collector.G1), null, null).size(), "duplicates dropped");
    }

    @Test
    void theCollectorReplacesTheSuitesChoiceAndNothingElse() {
        List<String> suiteArgs = List.of("-XX:+UseG1GC", "-Xmx64m", "-XX:+AlwaysPreTouch", "-XX:-UseParallelGC");
        assertEquals(List.of("-XX:+UseZGC", "-Xmx64m", "-XX:+AlwaysPreTouch"),
                new JvmConfig(Collector.ZGC, 0, 0).withCollector(suiteArgs));
        assertEquals(suiteArgs, JvmConfig.DEFAULT.withCollector(suiteArgs));
    }

    @Test
    void aConfigurationTravelsToTheWorkerWithItsTrial() {
        Trial t = new Trial("somar", Mode.QUICK, "floe-nova", "ll-read-write", 2, 0.1, 0.2,
                new JvmConfig(Collector.PARALLEL, 256 * MIB, 2048 * MIB));
        assertEquals(t, Trial.fromJson(Json.parseObject(Json.compact(t.toJson()))));
        Trial plain = new Trial("somar", Mode.QUICK, "floe-nova", "ll-read-write", 2, 0.1, 0.2);
        assertFalse(plain.toJson().containsKey("jvm"), "the default configuration adds nothing to the protocol");
        assertEquals(plain, Trial.fromJson(Json.parseObject(Json.compact(plain.toJson()))));
    }

    private static Settings resolve(Suite suite, List<String> impls, List<Collector> gcs, List<Long> heaps, List<Long> offheaps) {
        return Settings.resolve(suite, new BenchOptions(Mode.QUICK, impls, null, null, null, null, gcs, heaps, offheaps));
    }

    private static List<String> labels(Settings s) {
        return s.variants().stream().map(Variant::label).toList();
    }

    @Test
    void severalCollectorsMakeOneVariantPerImplementationAndCollector() {
        Settings s = resolve(new SomarSuite(), List.of("floe-nova", "gc-g1", "gc-zgc", "gc-parallel"),
                List.of(Collector.G1, Collector.ZGC), null, null);
        assertEquals(List.of("floe-nova@g1", "gc-g1", "floe-nova@zgc", "gc-zgc"), labels(s),
                "a collector baseline runs only under its own collector, under its own name");
        assertTrue(s.configured());
        assertEquals(List.of("floe-nova", "gc-g1", "gc-zgc", "gc-parallel"), s.impls());
    }

    @Test
    void oneConfigurationKeepsThePlainNames() {
        Settings s = resolve(new SomarSuite(), List.of("floe-nova", "gc-g1", "gc-zgc"), List.of(Collector.ZGC),
                List.of(512 * MIB), null);
        assertEquals(List.of("floe-nova", "gc-zgc"), labels(s));
        assertEquals(new JvmConfig(null, 512 * MIB, 0), s.commonBudgets());
        @SuppressWarnings("unchecked")
        Map<String, Object> jvm = (Map<String, Object>) s.toJson().get("jvm_configs");
        assertEquals(Map.of("gc", "zgc", "heap_bytes", 512 * MIB), jvm.get("floe-nova"));
    }

    @Test
    void severalBudgetsNameTheBudgetThatVaries() {
        Settings s = resolve(new SomarSuite(), List.of("floe-nova", "gc-g1"), null, List.of(128 * MIB, 256 * MIB),
                List.of(1024 * MIB));
        assertEquals(List.of("floe-nova@heap=128m", "gc-g1@heap=128m", "floe-nova@heap=256m", "gc-g1@heap=256m"), labels(s));
        assertEquals(JvmConfig.DEFAULT, s.commonBudgets(), "configurations differ: the suite's own for its config");
    }

    @Test
    void budgetsTheMachineCannotHoldAreRefusedBeforeAnythingRuns() {
        // somar: shared workers, all alive at once; 2 x (1g + 3g) = 8g
        Suite somar = new SomarSuite();
        Settings s = resolve(somar, List.of("floe-nova", "gc-g1"), null, List.of(1024 * MIB), List.of(3072 * MIB));
        Settings.refuseBudgetsBeyond(8192 * MIB, somar, s);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.refuseBudgetsBeyond(8191 * MIB, somar, s));
        assertTrue(e.getMessage().contains("2 worker JVMs") && e.getMessage().contains("8.00 GiB"), e.getMessage());
        // manual: a fresh JVM per run, one at a time: only the largest counts
        Suite manual = new ManualSuite();
        Settings m = resolve(manual, null, null, List.of(1024 * MIB), List.of(1024 * MIB, 3072 * MIB));
        Settings.refuseBudgetsBeyond(4096 * MIB, manual, m);
        e = assertThrows(IllegalArgumentException.class, () -> Settings.refuseBudgetsBeyond(4095 * MIB, manual, m));
        assertTrue(e.getMessage().contains("runs each measurement in a fresh JVM") && e.getMessage().contains("4.00 GiB"),
                e.getMessage());
        // the suite's own sizes and an unknown machine are never refused
        Settings own = resolve(somar, null, null, null, null);
        Settings.refuseBudgetsBeyond(16 * MIB, somar, own);
        Settings.refuseBudgetsBeyond(0, somar, s);
    }

    @Test
    void noVariantLeftIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> resolve(new SomarSuite(), List.of("gc-g1"), List.of(Collector.ZGC), null, null));
        assertTrue(e.getMessage().contains("--gc"), e.getMessage());
    }

    @Test
    void suitesThatCompareNoCollectorsRefuseTheOptions() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> resolve(new AllocSuite(), null, List.of(Collector.ZGC), List.of(64 * MIB), null));
        assertTrue(e.getMessage().contains("does not take --gc") && e.getMessage().contains("does not take --heap"),
                e.getMessage());
        assertEquals(List.of("--gc", "--heap", "--offheap"), List.copyOf(Settings.unusableOptions(new AllocSuite(),
                new BenchOptions(null, null, null, null, null, null, List.of(Collector.G1), List.of(64 * MIB),
                        List.of(64 * MIB))).keySet()));
    }

    @Test
    void workersGetTheConfigurationsCollectorExceptCollectorBaselines() {
        Suite manual = new ManualSuite();
        Settings s = resolve(manual, null, List.of(Collector.ZGC, Collector.G1), List.of(64 * MIB), List.of(256 * MIB));
        assertEquals(List.of("manual@zgc", "manual@g1", "gc-g1"), labels(s));
        for (Variant v : s.variants()) {
            List<String> args = SuiteRunner.workerArgs(manual, v, Mode.QUICK, s.variants().size(), null);
            String want = v.impl().equals("gc-g1") ? "-XX:+UseG1GC" : v.jvm().collector().flag();
            assertEquals(1, args.stream().filter(Collector::isChoice).count(), args.toString());
            assertTrue(args.contains(want), v + ": " + args);
            // the same RAM for both: manual gets the heap, gc-g1 heap + off-heap
            assertTrue(args.contains(v.impl().equals("gc-g1") ? "-Xmx320m" : "-Xmx64m"), v + ": " + args);
        }
    }
}
