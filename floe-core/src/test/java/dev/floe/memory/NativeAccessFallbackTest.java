package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without {@code --enable-native-access}, {@link RegionMode#AUTO} falls back to
 * {@link RegionMode#ARENA_CHUNKS} silently: no restricted method is touched, so the JDK prints no
 * warning. With native access (as in this surefire JVM) it resolves to {@link RegionMode#MAPPED},
 * unless the OS refuses the address space.
 */
class NativeAccessFallbackTest {

    private static ChildJvm.Result runChild(Path dir, String... jvmArgs) throws Exception {
        String[] args = java.util.Arrays.copyOf(jvmArgs, jvmArgs.length + 1);
        args[jvmArgs.length] = "-Xmx256m";
        return ChildJvm.run(dir, FallbackChildMain.class, 120, args);
    }

    @Test
    void autoFallsBackToArenaChunksWithoutNativeAccessAndWithoutAWarning(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = runChild(dir);
        assertEquals(0, r.exit(), () -> "child exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        assertTrue(r.stdout().contains("mode=ARENA_CHUNKS"), () -> "child stdout: " + r.stdout());
        assertFalse(r.stderr().contains("WARNING"), () -> "the child printed a warning:\n" + r.stderr());
    }

    /**
     * Under {@code ulimit -v} the OS refuses the default 256 GiB reservation with {@code ENOMEM}:
     * AUTO falls back to arena chunks with a WARNING naming the cost, where the build used to
     * throw (and with it every map on the shared allocator).
     */
    @Test
    void autoFallsBackToArenaChunksWhenTheAddressSpaceIsRefused(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = ChildJvm.runWithAddressLimit(dir, FallbackChildMain.class, 120, 4L << 20,
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m");
        assertEquals(0, r.exit(), () -> "child exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
        assertTrue(r.stdout().contains("mode=ARENA_CHUNKS"), () -> "child stdout: " + r.stdout());
        assertTrue(r.stderr().contains("WARNING") && r.stderr().contains("using ARENA_CHUNKS instead"),
                () -> "no warning about the fallback:\n" + r.stderr());
    }

    @Test
    void autoIsMappedInAChildJvmWithNativeAccess(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = runChild(dir, "--enable-native-access=ALL-UNNAMED");
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
