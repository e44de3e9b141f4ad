package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An allocator in a JVM that never records does not start JFR: the event classes are not even
 * loaded (loading one builds JFR's metadata, about 14 MiB resident: {@link JfrEvents}). Checked
 * in a child JVM that logs class loading, since this surefire JVM records in other tests.
 * (That events are recorded when a recording runs is {@code FloeAllocatorTest}'s JFR test.)
 */
class JfrIdleTest {

    @Test
    void superblockReleasesAndLargeRunsLoadNoJfrClassesWithoutARecording(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-Xlog:class+load=info:stdout",
                "-cp", System.getProperty("java.class.path"), JfrIdleChildMain.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("_JAVA_OPTIONS");
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not finish within 120 s");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "child failed: " + stderr);
        String result = stdout.lines().filter(l -> l.startsWith("releases=")).findFirst().orElseThrow();
        assertTrue(!result.startsWith("releases=0"), "the child released superblocks: " + result);
        assertTrue(stdout.contains(JfrIdleChildMain.class.getName()), "class loading is logged");
        assertFalse(stdout.contains(SuperblockReleaseEvent.class.getName()), "SuperblockReleaseEvent was loaded");
        assertFalse(stdout.contains(LargeAllocationEvent.class.getName()), "LargeAllocationEvent was loaded");
        assertFalse(stdout.contains("jdk.jfr.internal."), "JFR's internals were loaded");
    }
}
