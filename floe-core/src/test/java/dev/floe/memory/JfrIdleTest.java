package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

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
        ChildJvm.Result r = ChildJvm.run(dir, JfrIdleChildMain.class, 120,
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-Xlog:class+load=info:stdout");
        String stdout = r.stdout();
        assertEquals(0, r.exit(), () -> "child failed: " + r.stderr());
        String result = stdout.lines().filter(l -> l.startsWith("releases=")).findFirst().orElseThrow();
        assertTrue(!result.startsWith("releases=0"), "the child released superblocks: " + result);
        assertTrue(stdout.contains(JfrIdleChildMain.class.getName()), "class loading is logged");
        assertFalse(stdout.contains(SuperblockReleaseEvent.class.getName()), "SuperblockReleaseEvent was loaded");
        assertFalse(stdout.contains(LargeAllocationEvent.class.getName()), "LargeAllocationEvent was loaded");
        assertFalse(stdout.contains("jdk.jfr.internal."), "JFR's internals were loaded");
    }
}
