package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code --enable-native-access}, {@link RegionMode#AUTO} falls back to
 * {@link RegionMode#ARENA_CHUNKS} silently: no restricted method is touched, so the JDK prints no
 * warning. With native access (as in this surefire JVM) it resolves to {@link RegionMode#MAPPED}.
 */
class NativeAccessFallbackTest {

    private record Result(int exit, String stdout, String stderr) {}

    private static Result runChild(Path dir, String... jvmArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmArgs));
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FallbackChildMain.class.getName());
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        // the child must see exactly the flags above
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("_JAVA_OPTIONS");
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("child JVM did not finish within 120 s: " + cmd);
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void autoFallsBackToArenaChunksWithoutNativeAccessAndWithoutAWarning(@TempDir Path dir) throws Exception {
        Result r = runChild(dir);
        assertEquals(0, r.exit(), () -> "child exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        assertTrue(r.stdout().contains("mode=ARENA_CHUNKS"), () -> "child stdout: " + r.stdout());
        assertFalse(r.stderr().contains("WARNING"), () -> "the child printed a warning:\n" + r.stderr());
    }

    @Test
    void autoIsMappedInAChildJvmWithNativeAccess(@TempDir Path dir) throws Exception {
        Result r = runChild(dir, "--enable-native-access=ALL-UNNAMED");
        assertEquals(0, r.exit(), () -> "child exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        assertTrue(r.stdout().contains("mode=MAPPED"), () -> "child stdout: " + r.stdout());
        assertFalse(r.stderr().contains("WARNING"), () -> "the child printed a warning:\n" + r.stderr());
    }

    @Test
    void autoResolvesToMappedInThisJvmWhichHasNativeAccess() {
        assertTrue(Region.class.getModule().isNativeAccessEnabled(), "surefire passes --enable-native-access");
        assertEquals(RegionMode.MAPPED, Region.detectMode());
        try (FloeAllocator a = FloeAllocator.builder().regionSize(TestSupport.REGION).build()) {
            assertEquals(RegionMode.MAPPED, a.mode());
            assertEquals(RegionMode.MAPPED, a.stats().mode());
        }
        try (Region r = Region.open(TestSupport.REGION, 256 << 10, RegionMode.AUTO)) {
            assertEquals(RegionMode.MAPPED, r.mode());
        }
    }
}
