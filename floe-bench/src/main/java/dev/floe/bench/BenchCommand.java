package dev.floe.bench;

import dev.floe.bench.harness.BenchOptions;
import dev.floe.bench.harness.BenchmarkException;
import dev.floe.bench.harness.BuildInfo;
import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.ConsoleReport;
import dev.floe.bench.harness.HostActivity;
import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Machine;
import dev.floe.bench.harness.Mode;
import dev.floe.bench.harness.Progress;
import dev.floe.bench.harness.Report;
import dev.floe.bench.harness.Settings;
import dev.floe.bench.harness.Suite;
import dev.floe.bench.harness.SuiteReport;
import dev.floe.bench.harness.SuiteRunner;
import dev.floe.bench.report.CompareReport;
import dev.floe.bench.report.ConsoleSummary;
import dev.floe.bench.report.ReportFolder;
import dev.floe.bench.report.RunData;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code floe bench [SUITE] [options]}: the command line of BENCHMARKS.md.
 *
 * <p>Without a suite it is the main job: every registered suite in turn (quick unless
 * {@code --full}), the per-suite tables, a closing summary, and the report folder
 * ({@code floe-report/}: {@code results.json}, {@code index.html}, {@code charts/}; see
 * {@link ReportFolder}). With a suite it runs that one and writes files only where asked
 * ({@code --json FILE}, or the whole report folder with {@code --out DIR}).
 *
 * <p>{@code --compare OLD.json} prints per-result deltas of this run against an earlier results
 * file ({@link CompareReport}); with {@code --against NEW.json} it compares the two files and
 * runs nothing. Tables go to standard output, progress to standard error. Exit code 0 on
 * success (missed goals are results, not errors), 1 when a run failed, 2 for bad options or an
 * unreadable results file.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = FloeCli.Version.class, sortOptions = false,
        description = {"Runs the benchmarks. Without SUITE: the quick mode of every suite, a summary "
                + "and floe-report/ (index.html, charts/, results.json)."},
        footer = {"", "Examples:", "  ./floe bench", "  ./floe bench alloc --impl floe-alloc,malloc --threads 1 --json alloc.json",
                "  ./floe bench --compare floe-report-before/results.json",
                "  ./floe bench --compare old.json --against new.json",
                "  ./floe bench somar --gc g1,zgc --impl floe-nova,gc-g1,gc-zgc",
                "  ./floe bench map --heap 64m --offheap 512m,1g",
                "", "A suite refuses options it cannot honour (manual: --duration, --warmup;",
                "defrag: --threads other than 1; --gc, --heap, --offheap outside somar, map",
                "and manual); the main job uses its defaults instead.",
                "Exit code 1: a run failed; 2: a bad command line or results file.",
                "The command line and the JSON format are fixed in BENCHMARKS.md."})
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

    @Option(names = "--threads", split = ",", paramLabel = "N", description = "Thread counts, e.g. 1,2 (1 to 1024).")
    private List<Integer> threads;

    @Option(names = "--duration", paramLabel = "SEC", description = "Measured seconds per run.")
    private Double duration;

    @Option(names = "--warmup", paramLabel = "SEC", description = "Warm-up seconds per implementation and cell.")
    private Double warmup;

    @Option(names = "--runs", paramLabel = "N", description = "Runs per implementation and cell (median; default 3, lockfree --full: 5; map ingest --quick: 1 unless given).")
    private Integer runs;

    @Option(names = "--gc", split = ",", paramLabel = "GC", converter = CollectorConverter.class,
            description = "somar, map, manual: run every implementation under each collector (g1, zgc, parallel), "
                    + "each in its own worker JVM; gc-* baselines keep theirs.")
    private List<Collector> gcs;

    @Option(names = "--heap", split = ",", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "somar, map, manual: heap of the off-heap implementations, e.g. 512m (on-heap ones get "
                    + "heap + off-heap); several values: one configuration each.")
    private List<Long> heaps;

    @Option(names = "--offheap", split = ",", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "somar, map, manual: off-heap budget of the off-heap implementations, e.g. 2g.")
    private List<Long> offheaps;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON report to FILE.")
    private Path json;

    @Option(names = "--out", paramLabel = "DIR",
            description = "Report folder: results.json, index.html, charts/ (default for the main job: floe-report/).")
    private Path out;

    @Option(names = "--compare", paramLabel = "OLD.json",
            description = "After the run, print per-result deltas against an earlier results file.")
    private Path compare;

    @Option(names = "--against", paramLabel = "NEW.json",
            description = "With --compare: compare OLD.json with this file instead of running (SUITE limits it to one suite).")
    private Path against;

    @Option(names = "--key-bytes", paramLabel = "N", description = "map suite: key size in bytes (default 100).")
    private Integer keyBytes;

    @Option(names = "--value-bytes", paramLabel = "N", description = "map suite: value size in bytes (default 1000).")
    private Integer valueBytes;

    /** {@code --gc} values. */
    static final class CollectorConverter implements ITypeConverter<Collector> {
        @Override
        public Collector convert(String value) {
            try {
                return Collector.byLabel(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code --heap} / {@code --offheap} values: bytes, or with a k/m/g/t suffix. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                long bytes = JvmConfig.parseSize(value);
                if (bytes < JvmConfig.MIN_BYTES) throw new TypeConversionException("at least 16m: '" + value + "'");
                return bytes;
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** The suite names for the help text. */
    static final class SuiteNames extends ArrayList<String> {
        SuiteNames() {
            super(SuiteRegistry.all().stream().map(Suite::name).toList());
        }
    }

    /** A suite with the settings it will run with. */
    record Planned(Suite suite, Settings settings) {}

    @Override
    public Integer call() throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        if (against != null) return compareFiles(stdout);
        RunData old = compare == null ? null : readResults(compare, "--compare");

        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        HostActivity.Meter host = HostActivity.start();
        refuseEntrySizesOutsideMap();
        try {
            dev.floe.bench.map.MapSuite.entrySizes(keyBytes, valueBytes);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<Planned> plan = plan(new BenchOptions(mode(), impls, threads, duration, warmup, runs, gcs, heaps, offheaps));
        Path dir = out != null ? out : suite == null ? DEFAULT_OUT : null;
        refuseUnwritableOutputs(dir);

        SuiteRunner runner = new SuiteRunner(Progress.forConsole());
        List<String> failed = new ArrayList<>();
        List<SuiteReport> reports = runSuites(plan, runner::run, stdout, failed);
        if (reports.isEmpty()) return 1;

        Report report = new Report(BuildInfo.version(), BuildInfo.gitCommit(), started, Machine.current(), reports,
                host.stop());
        RunData run = RunData.of(report.toJson());
        stdout.print(ConsoleSummary.render(run));
        if (dir != null) {
            ReportFolder.Written w = ReportFolder.write(report, reproduceCommand(), BenchCommand::description, dir);
            stdout.println("wrote " + w.results());
            stdout.println("wrote " + w.page().file() + " (" + w.page().charts().size() + " charts in "
                    + w.page().file().resolveSibling("charts") + ")");
            w.page().chartFailures().forEach((s, why) ->
                    System.err.println("floe bench: charts missing for " + s + ": " + why));
        }
        if (json != null) {
            report.write(json);
            stdout.println("wrote " + json);
        }
        if (old != null) {
            Set<String> ran = run.suites().stream().map(RunData.SuiteData::suite).collect(Collectors.toSet());
            stdout.println();
            stdout.print(CompareReport.render(old.only(ran), run, compare.toString(), "this run"));
        }
        stdout.flush();
        if (!failed.isEmpty()) {
            System.err.println("floe bench: failed, not in the report: " + String.join(", ", failed));
            return 1;
        }
        return 0;
    }

    /** How a planned suite is run (the {@link SuiteRunner}; a stand-in in tests). */
    @FunctionalInterface
    interface SuiteRun {
        SuiteReport run(Suite suite, Settings settings) throws BenchmarkException;
    }

    /**
     * Runs the planned suites in order and prints each one's summary. A suite that fails is
     * named on standard error and in {@code failed}, and the others still run: the main job's
     * report then holds every suite that finished (the command exits 1), instead of none.
     */
    static List<SuiteReport> runSuites(List<Planned> plan, SuiteRun run, PrintWriter stdout, List<String> failed) {
        List<SuiteReport> reports = new ArrayList<>();
        for (Planned p : plan) {
            try {
                SuiteReport r = run.run(p.suite(), p.settings());
                reports.add(r);
                stdout.print(ConsoleReport.render(r, p.suite().description()));
            } catch (BenchmarkException e) {
                System.err.println("floe bench: " + p.suite().name() + " failed: " + e.getMessage());
                failed.add(p.suite().name());
            } catch (RuntimeException e) {
                // A defect rather than a failed run, but it must not take the other suites with it.
                System.err.println("floe bench: " + p.suite().name() + " failed: " + e);
                e.printStackTrace();
                failed.add(p.suite().name());
            }
            stdout.flush();
        }
        return reports;
    }

    /** {@code --compare OLD.json --against NEW.json}: the deltas between two files, nothing run. */
    private int compareFiles(PrintWriter stdout) {
        if (compare == null) throw new ParameterException(spec.commandLine(), "--against NEW.json needs --compare OLD.json");
        List<String> runOptions = runOptionsGiven();
        if (!runOptions.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--against compares two files and runs nothing: "
                    + String.join(", ", runOptions) + " would have no effect");
        }
        RunData before = readResults(compare, "--compare");
        RunData after = readResults(against, "--against");
        if (suite != null) {
            if (before.suite(suite).isEmpty() && after.suite(suite).isEmpty()) {
                throw new ParameterException(spec.commandLine(), "neither file has suite '" + suite + "'");
            }
            before = before.only(Set.of(suite));
            after = after.only(Set.of(suite));
        }
        stdout.print(CompareReport.render(before, after, compare.toString(), against.toString()));
        stdout.flush();
        return 0;
    }

    /** The options that shape or save a run, which {@code --against} (nothing runs) cannot honour. */
    private List<String> runOptionsGiven() {
        List<String> given = new ArrayList<>();
        if (modeChoice != null) given.add(modeChoice.full ? "--full" : "--quick");
        if (impls != null) given.add("--impl");
        if (threads != null) given.add("--threads");
        if (duration != null) given.add("--duration");
        if (warmup != null) given.add("--warmup");
        if (runs != null) given.add("--runs");
        if (gcs != null) given.add("--gc");
        if (heaps != null) given.add("--heap");
        if (offheaps != null) given.add("--offheap");
        if (json != null) given.add("--json");
        if (out != null) given.add("--out");
        given.addAll(entrySizeOptionsGiven());
        return given;
    }

    private RunData readResults(Path file, String option) {
        try {
            return RunData.read(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), option + ": no such file: " + file, e);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), option + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The suite's one-line description, for the report page. */
    private static String description(String suiteName) {
        return SuiteRegistry.find(suiteName).map(Suite::description).orElse(null);
    }

    /** Arguments that need no quoting in a POSIX shell. */
    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./,=:@%+-]+");

    /**
     * The command line of this invocation as it would be typed through the launcher, e.g.
     * {@code ./floe bench alloc --impl floe-alloc,malloc}, arguments quoted for a POSIX shell
     * where needed.
     */
    String reproduceCommand() {
        List<String> args = spec.root().commandLine().getParseResult().originalArgs();
        StringBuilder b = new StringBuilder("./floe");
        for (String a : args) {
            b.append(' ').append(SHELL_SAFE.matcher(a).matches() ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return b.toString();
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
                plan.add(new Planned(s, resolve(s, usableBy(s, options))));
            } else {
                List<String> own = impls.stream().filter(s.impls()::contains).toList();
                if (!own.isEmpty()) plan.add(new Planned(s, resolve(s, usableBy(s, options.withImpls(own)))));
            }
        }
        List<String> sizes = entrySizeOptionsGiven();
        if (!sizes.isEmpty() && plan.stream().noneMatch(p -> p.suite().name().equals("map"))) {
            throw new ParameterException(spec.commandLine(), String.join(" and ", sizes)
                    + ": options of the map suite only, and --impl selects no map implementation");
        }
        return plan;
    }

    /**
     * In the main job, the options without those a suite cannot honour, which take that suite's
     * defaults instead; a note on standard error names each.
     */
    private static BenchOptions usableBy(Suite s, BenchOptions options) {
        Map<String, String> unusable = Settings.unusableOptions(s, options);
        unusable.forEach((option, reason) -> System.err.println("floe bench: note: " + s.name() + " runs without "
                + option + " (" + reason + ")"));
        return options.without(unusable.keySet());
    }

    /** {@code --key-bytes} / {@code --value-bytes} belong to the map suite: refused for a run of another suite alone. */
    private void refuseEntrySizesOutsideMap() {
        if (suite == null || suite.equals("map")) return;
        List<String> given = entrySizeOptionsGiven();
        if (!given.isEmpty()) {
            throw new ParameterException(spec.commandLine(), String.join(" and ", given)
                    + ": options of the map suite only, not of " + suite);
        }
    }

    private List<String> entrySizeOptionsGiven() {
        List<String> given = new ArrayList<>();
        if (keyBytes != null) given.add("--key-bytes");
        if (valueBytes != null) given.add("--value-bytes");
        return given;
    }

    private Mode mode() {
        return modeChoice != null && modeChoice.full ? Mode.FULL : Mode.QUICK;
    }

    /**
     * The suite's settings, checked as far as they can be before anything runs: options, and what
     * the suite would otherwise find out only when its turn comes ({@link SuiteRunner#check}:
     * workload filters and other system properties, a selection that measures nothing).
     */
    private Settings resolve(Suite s, BenchOptions options) {
        try {
            Settings settings = Settings.resolve(s, options);
            SuiteRunner.check(s, settings);
            return settings;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /**
     * Refuses, before anything runs, a {@code --json} file or report folder ({@code --out}, or
     * the main job's {@code floe-report/}) that could not be written at the end: a run may take
     * hours. Creates the folders that are missing, as writing them would.
     */
    private void refuseUnwritableOutputs(Path reportDir) {
        List<String> problems = new ArrayList<>();
        if (json != null) {
            String why = Files.isDirectory(json) ? json + " is a folder" : unwritableFolder(json.toAbsolutePath().getParent());
            if (why != null) problems.add("--json " + json + ": " + why);
        }
        if (reportDir != null) {
            String why = unwritableFolder(reportDir);
            if (why != null) problems.add((out != null ? "--out " : "report folder ") + reportDir + ": " + why);
        }
        if (!problems.isEmpty()) throw new ParameterException(spec.commandLine(), String.join("; ", problems));
    }

    /**
     * Why files cannot be written in folder {@code dir} (created if missing), or null if they can:
     * a probe file is created there and deleted.
     */
    static String unwritableFolder(Path dir) {
        if (dir == null) return null;
        Path abs = dir.toAbsolutePath();
        for (Path p = abs; p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                if (!Files.isDirectory(p)) return p + " is a file, not a folder";
                break;
            }
        }
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            return "cannot create folder " + abs + " (" + e + ")";
        }
        try {
            Path probe = Files.createTempFile(abs, ".floe-write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            return "cannot write in " + abs + " (" + e + ")";
        }
        return null;
    }
}
