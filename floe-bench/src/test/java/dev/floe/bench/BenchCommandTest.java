package dev.floe.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
