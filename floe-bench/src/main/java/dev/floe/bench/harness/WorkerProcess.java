package dev.floe.bench.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The parent's handle on one worker JVM (see {@link WorkerMain} for the protocol).
 *
 * <p>The worker runs the same {@code java} with the same class path as this JVM, with
 * {@code --enable-native-access=ALL-UNNAMED}, this JVM's heap and {@code -XX:} options (so that
 * {@code FLOE_JAVA_OPTS} reach the measurement; a collector choice among them only when the
 * suite's options choose none), and the suite's options for the implementation.
 * Its standard error is this process's standard error.
 */
final class WorkerProcess implements AutoCloseable {

    /** Prefix of a successful answer line. */
    static final String SAMPLE = "FLOE-SAMPLE ";
    /** Prefix of a failed answer line. */
    static final String ERROR = "FLOE-ERROR ";

    private final String name;
    private final Process process;
    private final BufferedWriter requests;
    private final BufferedReader answers;

    private WorkerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.requests = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts a worker JVM for one {@link Variant} of a suite (named {@code label} in messages) with
     * its JVM options {@code jvmArgs}; {@code liveWorkers} worker JVMs (this one included) may be
     * alive at once.
     */
    static WorkerProcess start(Suite suite, String label, List<String> jvmArgs, int liveWorkers) throws BenchmarkException {
        List<String> cmd = command(suite, jvmArgs, liveWorkers);
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new WorkerProcess(suite.name() + "/" + label, p);
        } catch (IOException e) {
            throw new BenchmarkException("cannot start a worker JVM for " + label + ": " + String.join(" ", cmd), e);
        }
    }

    /** Runs one trial in the worker and returns what it measured. */
    Sample run(Trial trial) throws BenchmarkException {
        try {
            requests.write(Json.compact(trial.toJson()));
            requests.newLine();
            requests.flush();
            for (String line = answers.readLine(); line != null; line = answers.readLine()) {
                if (line.startsWith(SAMPLE)) return Sample.fromJson(Json.parseObject(line.substring(SAMPLE.length())));
                if (line.startsWith(ERROR)) {
                    throw new BenchmarkException(name + " failed on " + trial.workload() + ": "
                            + line.substring(ERROR.length()));
                }
                System.err.println(line);
            }
        } catch (IOException e) {
            throw new BenchmarkException("lost the worker JVM " + name + ": " + e.getMessage(), e);
        }
        throw new BenchmarkException("the worker JVM " + name + " exited (" + exitCode() + ") during "
                + trial.workload() + "; see its output above");
    }

    /** Closes the worker's input, which ends it; kills it if it does not end promptly. */
    @Override
    public void close() {
        try {
            requests.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (IOException e) {
            process.destroyForcibly(); // the pipe is already broken: the worker is gone or stuck
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private String exitCode() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? "exit code " + process.exitValue() : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static List<String> command(Suite suite, List<String> jvmArgs, int liveWorkers) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        boolean ownCollector = jvmArgs.stream().anyMatch(Collector::isChoice);
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (ownCollector && Collector.isChoice(arg)) continue; // two collector choices would stop the JVM
            if (arg.startsWith("-Xmx") || arg.startsWith("-Xms") || arg.startsWith("-Xss") || arg.startsWith("-XX:")) {
                cmd.add(arg);
            }
        }
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.addAll(jvmArgs);
        cmd.add("-D" + Suite.LIVE_WORKERS + "=" + liveWorkers);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(WorkerMain.class.getName());
        cmd.add(suite.getClass().getName());
        return cmd;
    }
}
