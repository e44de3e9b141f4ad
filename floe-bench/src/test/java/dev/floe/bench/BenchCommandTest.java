package dev.floe.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad command lines are refused before anything runs, with a message that helps. */
class BenchCommandTest {

    private record Outcome(int code, String err) {}

    /** Options that keep a run tiny should a refusal under test regress and the command run. */
    private static final String[] TINY = {"--threads", "1", "--runs", "1", "--duration", "0.05", "--warmup", "0"};

    private static Outcome run(Object... args) {
        List<String> flat = new ArrayList<>();
        for (Object a : args) {
            if (a instanceof String[] many) flat.addAll(List.of(many));
            else flat.add((String) a);
        }
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new FloeCli());
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        return new Outcome(cli.execute(flat.toArray(String[]::new)), err.toString());
    }

    @Test
    void anUnknownSuiteIsRefusedWithTheListOfSuites() {
        Outcome o = run("bench", "nosuch");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("unknown suite 'nosuch'") && o.err().contains("alloc"), o.err());
    }

    @Test
    void anUnknownImplementationIsRefusedWithTheChoices() {
        Outcome o = run("bench", "alloc", "--impl", "jemalloc");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("jemalloc") && o.err().contains("floe-alloc"), o.err());
    }

    @Test
    void quickAndFullExcludeEachOther() {
        assertEquals(2, run("bench", "--quick", "--full").code());
    }

    @Test
    void nonPositiveThreadCountsAreRefused() {
        Outcome o = run("bench", "alloc", "--threads", "0");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--threads"), o.err());
    }

    @Test
    void threadCountsPastTheBoundAreRefusedBeforeAnythingRuns() {
        Outcome o = run("bench", "alloc", "--threads", "1,100000");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--threads values must be at most 1024"), o.err());
    }

    @Test
    void entrySizesOutsideWhatTheMapSuiteTakesAreRefused() {
        Outcome o = run("bench", "map", "--key-bytes", "4");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--key-bytes"), o.err());
        o = run("bench", "map", "--value-bytes", "2000000");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--value-bytes"), o.err());
    }

    @Test
    void entrySizesAreRefusedForASuiteThatHasNoEntries() {
        Outcome o = run("bench", "alloc", "--key-bytes", "50", "--impl", "malloc", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--key-bytes") && o.err().contains("map suite only"), o.err());
    }

    @Test
    void optionsASuiteWouldIgnoreAreRefusedForThatSuite() {
        Outcome o = run("bench", "manual", "--duration", "0.05", "--impl", "gc-g1", "--threads", "1", "--runs", "1");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("suite manual does not take --duration"), o.err());
        o = run("bench", "defrag", "--threads", "2", "--impl", "nova-fixed", "--runs", "1", "--duration", "0.05",
                "--warmup", "0");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("suite defrag does not take --threads"), o.err());
    }

    @Test
    void infiniteDurationIsRefused() {
        Outcome o = run("bench", "alloc", "--duration", "Infinity", "--impl", "malloc", "--threads", "1", "--runs", "1",
                "--warmup", "0");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--duration"), o.err());
    }

    @Test
    void comparingTwoFilesRefusesOptionsThatOnlyARunUses() {
        Outcome o = run("bench", "--compare", "old.json", "--against", "new.json", "--json", "x.json", "--runs", "5");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--against compares two files and runs nothing")
                && o.err().contains("--json") && o.err().contains("--runs"), o.err());
    }

    @Test
    void collectorAndBudgetOptionsAreCheckedAndRefusedWhereTheyMeanNothing() {
        Outcome o = run("bench", "somar", "--gc", "shenandoah", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("unknown collector 'shenandoah'") && o.err().contains("g1, zgc, parallel"), o.err());
        o = run("bench", "map", "--heap", "12x", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--heap") && o.err().contains("not a size"), o.err());
        o = run("bench", "map", "--offheap", "8m", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--offheap") && o.err().contains("at least 16m"), o.err());
        o = run("bench", "alloc", "--gc", "zgc", "--impl", "malloc", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("suite alloc does not take --gc"), o.err());
        o = run("bench", "somar", "--impl", "gc-g1", "--gc", "zgc", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("no implementation runs under the selected --gc"), o.err());
        o = run("bench", "--compare", "old.json", "--against", "new.json", "--gc", "zgc", "--heap", "1g");
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--gc") && o.err().contains("--heap"), o.err());
    }
    /** Runs the command with system property {@code key} set to {@code value} (as FLOE_JAVA_OPTS would). */
    private static Outcome runWithProperty(String key, String value, Object... args) {
        String before = System.getProperty(key);
        System.setProperty(key, value);
        try {
            return run(args);
        } finally {
            if (before == null) System.clearProperty(key);
            else System.setProperty(key, before);
        }
    }

    @Test
    void aJsonFileThatCannotBeWrittenIsRefusedBeforeAnythingRuns(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        Outcome o = run("bench", "alloc", "--impl", "malloc", TINY, "--json", file.resolve("alloc.json").toString());
        assertEquals(2, o.code(), "refused as a bad command line, not a failure after the run");
        assertTrue(o.err().contains("--json") && o.err().contains("is a file, not a folder"), o.err());

        o = run("bench", "alloc", "--impl", "malloc", TINY, "--json", dir.toString());
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--json") && o.err().contains("is a folder"), o.err());
    }

    @Test
    void aReportFolderThatCannotBeWrittenIsRefusedBeforeAnythingRuns(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        Outcome o = run("bench", "alloc", "--impl", "malloc", TINY, "--out", file.toString());
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--out") && o.err().contains("is a file, not a folder"), o.err());
    }

    @Test
    void aMissingOutputFolderIsCreatedAndAWritableOneAccepted(@TempDir Path dir) {
        Path nested = dir.resolve("a").resolve("b");
        assertNull(BenchCommand.unwritableFolder(nested));
        assertTrue(Files.isDirectory(nested));
        assertNull(BenchCommand.unwritableFolder(nested), "an existing folder");
        try (var left = Files.list(nested)) {
            assertEquals(0, left.count(), "the probe file is removed");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void anUnknownWorkloadInTheFilterPropertyIsRefusedBeforeAnythingRuns() {
        Outcome o = runWithProperty("floe.bench.map.workloads", "zc-gte", "bench", "map", "--impl", "floe-oak", TINY);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("-Dfloe.bench.map.workloads") && o.err().contains("'zc-gte'")
                && o.err().contains("zc-get"), o.err());
        // the main job: before, somar ran first and the map suite then died with a stack trace
        o = runWithProperty("floe.bench.map.workloads", "zc-gte", "bench", "--impl", "floe-nova,floe-oak", TINY);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("'zc-gte'"), o.err());
    }

    @Test
    void aWorkloadSelectionThatRunsNothingIsRefused() {
        Outcome o = runWithProperty("floe.bench.map.workloads", ",", "bench", "map", "--impl", "floe-oak", TINY);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("names no workload"), o.err());
        // rollup measures floe-oak and cslm only
        o = runWithProperty("floe.bench.map.workloads", "rollup", "bench", "map", "--impl", "mapdb", TINY);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("would run nothing") && o.err().contains("mapdb"), o.err());
    }

    @Test
    void aMalformedSizingPropertyIsRefusedBeforeAnythingRuns() {
        Outcome o = runWithProperty("floe.bench.map.range", "abc", "bench", "map", "--impl", "floe-oak", TINY);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("floe.bench.map.range") && o.err().contains("'abc'"), o.err());
    }

    @Test
    void entrySizesAreRefusedInTheMainJobWhenNoMapImplementationRuns() {
        Outcome o = run("bench", "--impl", "malloc", "--key-bytes", "50", TINY);
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--key-bytes") && o.err().contains("no map implementation"), o.err());
    }

    @Test
    void aMissingCompareFileIsNamedAsMissing(@TempDir Path dir) {
        Outcome o = run("bench", "--compare", dir.resolve("old.json").toString(), "--against",
                dir.resolve("new.json").toString());
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--compare: no such file"), o.err());
    }
}
