package dev.floe.bench.report;

import dev.floe.bench.harness.Report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * The report folder ({@code floe-report/} for the main job, {@code --out DIR} otherwise):
 * {@code results.json} (exactly BENCHMARKS.md), then {@code index.html} and {@code charts/}
 * rendered from that file as written, so the page never shows a number the JSON does not hold.
 */
public final class ReportFolder {

    /** The JSON file's name in the folder. */
    public static final String RESULTS = "results.json";

    private ReportFolder() {}

    /** What was written. */
    public record Written(Path results, HtmlReport.Page page) {}

    /**
     * Writes the whole folder, creating it if needed.
     *
     * @param command      the command line of the run, shown as the way to reproduce it
     * @param descriptions suite name -> one-line description, or {@code null}
     */
    public static Written write(Report report, String command, Function<String, String> descriptions, Path dir)
            throws IOException {
        Path json = dir.resolve(RESULTS);
        report.write(json);
        return new Written(json, HtmlReport.write(RunData.read(json), command, descriptions, dir));
    }
}
