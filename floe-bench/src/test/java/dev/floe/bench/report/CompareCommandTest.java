package dev.floe.bench.report;

import dev.floe.bench.FloeCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./floe bench --compare OLD.json} on two small real runs of the alloc suite: the first
 * with floe-alloc only, the second with floe-alloc and malloc, so that the comparison has results
 * on both sides and results on one side only. Also: the single-suite run with {@code --out}
 * writes the whole report folder, {@code --against} compares two files without running, and a
 * bad {@code --compare} file is refused before anything runs.
 */
class CompareCommandTest {

    private static final List<String> TINY = List.of("--threads", "1", "--duration", "0.2", "--warmup", "0.1", "--runs", "1");

    @TempDir
    Path dir;

    private record Outcome(int code, String out, String err) {}

    private static Outcome run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new FloeCli());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args.toArray(String[]::new));
        return new Outcome(code, out.toString(), err.toString());
    }

    private static List<String> args(List<String> head, List<String> tail) {
        return java.util.stream.Stream.concat(head.stream(), tail.stream()).toList();
    }

    @Test
    void compareAfterARunPrintsADeltaForEveryResult() throws Exception {
        Path old = dir.resolve("old.json");
        Outcome first = run(args(List.of("bench", "alloc", "--impl", "floe-alloc", "--json", old.toString()), TINY));
        assertEquals(0, first.code(), first.err());

        Path folder = dir.resolve("report");
        List<String> second = args(List.of("bench", "alloc", "--impl", "floe-alloc,malloc", "--out", folder.toString(),
                "--compare", old.toString()), TINY);
        Outcome o = run(second);
        assertEquals(0, o.code(), o.err());

        RunData before = RunData.read(old);
        RunData after = RunData.read(folder.resolve(ReportFolder.RESULTS));
        String compare = o.out().substring(o.out().indexOf("== compare: "));
        for (RunData.ResultData r : after.suites().getFirst().results()) {
            String line = line(compare, "alloc", r);
            if (r.impl().equals("floe-alloc")) {
                assertTrue(line.matches(".*[+-]\\d+\\.\\d%.*"), "a delta in percent: " + line);
            } else {
                assertTrue(line.contains("only in new"), line);
            }
        }
        assertEquals(2 * before.suites().getFirst().results().size(), after.suites().getFirst().results().size());
        assertTrue(compare.contains(before.suites().getFirst().results().size() + " results in both, 0 only in old, "
                + before.suites().getFirst().results().size() + " only in new"), compare);

        // the single-suite run with --out wrote the whole report, with the command that was run
        Document page = ReportRenderTest.parse(folder.resolve(HtmlReport.PAGE));
        assertFalse(ReportRenderTest.images(page, folder).isEmpty(), "charts");
        String command = ReportRenderTest.elements(page, "pre").getFirst().getTextContent();
        assertTrue(command.endsWith("\n./floe " + String.join(" ", second)) || command.equals("./floe " + String.join(" ", second)),
                command);
        assertTrue(o.out().contains("== summary =="), "closing summary");
        assertTrue(after.host() != null && after.host().wallSeconds() > 0, "the run recorded the host's activity");
        assertTrue(o.out().contains("host: " + after.machine().cores() + " cores; this invocation took "
                + after.host().describe()), "the summary's host line");
        assertTrue(compare.contains("  host: " + before.host().describe() + " -> " + after.host().describe()), compare);

        // two files, nothing run: the old-only side shows up
        Outcome files = run(List.of("bench", "--compare", folder.resolve(ReportFolder.RESULTS).toString(),
                "--against", old.toString()));
        assertEquals(0, files.code(), files.err());
        for (RunData.ResultData r : after.suites().getFirst().results()) {
            String line = line(files.out(), "alloc", r);
            assertTrue(r.impl().equals("malloc") ? line.contains("only in old") : line.matches(".*[+-]\\d+\\.\\d%.*"), line);
        }
        assertFalse(files.out().contains("== summary =="), "nothing ran");
    }

    @Test
    void badCompareOptionsAreRefusedBeforeAnythingRuns() throws Exception {
        Outcome missing = run(List.of("bench", "alloc", "--compare", dir.resolve("nope.json").toString()));
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("nope.json"), missing.err());

        Path notResults = Files.writeString(dir.resolve("x.json"), "{\"a\": 1}");
        Outcome bad = run(List.of("bench", "--compare", notResults.toString(), "--against", notResults.toString()));
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("not a Floe results file"), bad.err());

        Outcome alone = run(List.of("bench", "--against", notResults.toString()));
        assertEquals(2, alone.code());
        assertTrue(alone.err().contains("--compare"), alone.err());
    }

    /** The comparison row of one result: columns suite, workload, threads, impl, …. */
    private static String line(String text, String suite, RunData.ResultData r) {
        return text.lines().filter(l -> {
            String[] f = l.trim().split("\\s+");
            return f.length > 4 && f[0].equals(suite) && f[1].equals(r.workload())
                    && f[2].equals(String.valueOf(r.threads())) && f[3].equals(r.impl());
        }).findFirst().orElseThrow(() -> new AssertionError("no row for " + r.key() + " in\n" + text));
    }
}
