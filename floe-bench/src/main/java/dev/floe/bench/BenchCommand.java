package dev.floe.bench;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.BenchmarkException;
import dev.floe.bench.harness.BuildInfo;
import dev.floe.bench.harness.ConsoleReport;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Progress;
import dev.floe.bench.harness.Report;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.SuiteRunner;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code floe bench [SUITE] [options]}: the command line of BENCHMARKS.md.
 *
 * <p>Without a suite it is the main job: every registered suite in turn (quick unless
 * {@code --full}), the summary tables, and {@code results.json} in the report folder. With a
 * suite it runs that one and writes JSON only where asked ({@code --json FILE}, or
 * {@code --out DIR}). Tables go to standard output, progress to standard error. Exit code 0 on
 * success (missed goals are results, not errors), 1 when a run failed, 2 for bad options.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = FloeCli.Version.class, sortOptions = false,
        description = {"Runs the benchmarks. Without SUITE: the quick mode of every suite, a summary "
                + "and floe-report/results.json."},
        footer = {"", "Examples:", "  ./floe bench", "  ./floe bench alloc --impl floe-alloc,malloc --threads 1 --json alloc.json",
                "", "The command line and the JSON format are fixed in BENCHMARKS.md."})
public final class BenchCommand implements Callable<Integer> {

    /** Report folder of the main job when {@code --out} is not given. */
    static final Path DEFAULT_OUT = Path.of("floe-report");

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "SUITE",
            description = "One suite to run: ${COMPLETION-CANDIDATES}. Default: all, quick.",
            completionCandidates = SuiteNames.class)
    private String suite;

    @ArgGroup(exclusive = true)
    private ModeChoice modeChoice;

    /** {@code --quick} or {@code --full}, not both. */
    static final class ModeChoice {
        @Option(names = "--quick", description = "Quick parameters (default).")
        boolean quick;

        @Option(names = "--full", description = "Paper-sized parameters (long).")
        boolean full;
    }

    @Option(names = "--impl", split = ",", paramLabel = "NAME", description = "Implementations to run (default: all).")
    private List<String> impls;

    @Option(names = "--threads", split = ",", paramLabel = "N", description = "Thread counts, e.g. 1,2.")
    private List<Integer> threads;

    @Option(names = "--duration", paramLabel = "SEC", description = "Measured seconds per run.")
    private Double duration;

    @Option(names = "--warmup", paramLabel = "SEC", description = "Warm-up seconds per implementation and cell.")
    private Double warmup;

    @Option(names = "--runs", paramLabel = "N", description = "Runs per implementation and cell (median; default 3).")
    private Integer runs;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON report to FILE.")
    private Path json;

    @Option(names = "--out", paramLabel = "DIR", description = "Report folder for results.json (default for the main job: floe-report/).")
    private Path out;

    /** The suite names for the help text. */
    static final class SuiteNames extends ArrayList<String> {
        SuiteNames() {
            super(SuiteRegistry.all().stream().map(Suite::name).toList());
        }
    }

    /** A suite with the settings it will run with. */
    private record Planned(Suite suite, Settings settings) {}

    @Override
    public Integer call() throws IOException {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Planned> plan = plan(new BenchOptions(mode(), impls, threads, duration, warmup, runs));

        PrintStream stdout = System.out;
        SuiteRunner runner = new SuiteRunner(Progress.forConsole());
        List<SuiteReport> reports = new ArrayList<>();
        try {
            for (Planned p : plan) {
                SuiteReport r = runner.run(p.suite(), p.settings());
                reports.add(r);
                stdout.print(ConsoleReport.render(r, p.suite().description()));
                stdout.flush();
            }
        } catch (BenchmarkException e) {
            System.err.println("floe bench: " + e.getMessage());
            return 1;
        }
        stdout.print(ConsoleReport.targetLine(reports));

        Report report = new Report(BuildInfo.version(), BuildInfo.gitCommit(), started, Machine.current(), reports);
        Path dir = out != null ? out : suite == null ? DEFAULT_OUT : null;
        if (dir != null) write(report, dir.resolve("results.json"), stdout);
        if (json != null) write(report, json, stdout);
        return 0;
    }

    /**
     * The suites to run with their settings, all validated before anything runs. In the main
     * job {@code --impl} may name implementations of several suites: each suite takes the ones
     * it has and is skipped if it has none; a name no suite has is an error.
     */
    private List<Planned> plan(BenchOptions options) {
        List<Planned> plan = new ArrayList<>();
        if (suite != null) {
            Suite s = SuiteRegistry.find(suite).orElseThrow(() -> new ParameterException(spec.commandLine(),
                    "unknown suite '" + suite + "'; suites: " + SuiteRegistry.names()));
            plan.add(new Planned(s, resolve(s, options)));
            return plan;
        }
        if (impls != null) {
            for (String name : impls) {
                if (SuiteRegistry.all().stream().noneMatch(x -> x.impls().contains(name))) {
                    throw new ParameterException(spec.commandLine(), "no suite has an implementation '" + name + "'");
                }
            }
        }
        for (Suite s : SuiteRegistry.all()) {
            if (impls == null) {
                plan.add(new Planned(s, resolve(s, options)));
            } else {
                List<String> own = impls.stream().filter(s.impls()::contains).toList();
                if (!own.isEmpty()) plan.add(new Planned(s, resolve(s, options.withImpls(own))));
            }
        }
        return plan;
    }

    private Mode mode() {
        return modeChoice != null && modeChoice.full ? Mode.FULL : Mode.QUICK;
    }

    private Settings resolve(Suite s, BenchOptions options) {
        try {
            return Settings.resolve(s, options);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private static void write(Report report, Path file, PrintStream stdout) throws IOException {
        report.write(file);
        stdout.println("wrote " + file);
    }
}
