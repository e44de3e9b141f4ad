package dev.floe.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad command lines are refused before anything runs, with a message that helps. */
class BenchCommandTest {

    private record Outcome(int code, String err) {}

    private static Outcome run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new FloeCli());
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(new StringWriter()));
        return new Outcome(cli.execute(args), err.toString());
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
}
