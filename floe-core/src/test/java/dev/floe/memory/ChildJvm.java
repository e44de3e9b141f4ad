package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a test's {@code main} class in a child JVM of this JDK, on this test's class path, with
 * exactly the given JVM options (the {@code JAVA_TOOL_OPTIONS}-style variables are removed), for
 * the tests that need a fresh JVM: flags this one cannot change, or class loading to observe.
 */
final class ChildJvm {
    /** What the child did: exit code, standard output, standard error. */
    record Result(int exit, String stdout, String stderr) {}

    private ChildJvm() {}

    /** Runs {@code main} with {@code jvmArgs}; output goes through files in {@code dir}. Fails the test after {@code seconds}. */
    static Result run(Path dir, Class<?> main, int seconds, String... jvmArgs) throws IOException, InterruptedException {
        return run(dir, main, seconds, List.of(), jvmArgs);
    }

    /**
     * As {@link #run(Path, Class, int, String...)}, in a process whose address space is limited to
     * {@code kib} KiB ({@code ulimit -v}, through {@code bash}).
     */
    static Result runWithAddressLimit(Path dir, Class<?> main, int seconds, long kib, String... jvmArgs)
            throws IOException, InterruptedException {
        return run(dir, main, seconds, List.of("bash", "-c", "ulimit -v " + kib + " && exec \"$@\"", "bash"), jvmArgs);
    }

    private static Result run(Path dir, Class<?> main, int seconds, List<String> prefix, String... jvmArgs)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        // the child must see exactly the flags above
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("_JAVA_OPTIONS");
        Process p = pb.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not finish within " + seconds + " s: " + cmd + "\n"
                    + Files.readString(out, StandardCharsets.UTF_8) + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
