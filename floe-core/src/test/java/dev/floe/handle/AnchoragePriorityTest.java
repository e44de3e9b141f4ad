package dev.floe.handle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.floe.memory.BackgroundPriority;
import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import dev.floe.memory.RegionMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The service thread takes Linux's SCHED_IDLE scheduling policy by default, and keeps the normal one when asked to. */
class AnchoragePriorityTest {

    @Test
    void theServiceThreadRunsUnderSchedIdleByDefault() throws Exception {
        assumeTrue(Region.detectMode() == RegionMode.MAPPED, "Linux with native access");
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            try (Anchorage service = Anchorage.start(space, DefragConfig.DEFAULTS.withWakeInterval(Duration.ofMillis(10)))) {
                assertTrue(waitFor(service::runsAtLowPriority), "the loop lowered its priority");
                assertEquals(OptionalInt.of(BackgroundPriority.SCHED_IDLE), policyOf("floe-anchorage"));
            }
            // moveEverything: the loop runs passes at once, so a pass proves it is past its start,
            // where a lowered priority would have been taken
            try (Anchorage service = Anchorage.start(space, DefragConfig.DEFAULTS.withLowPriority(false)
                    .withMoveEverything(true).withWakeInterval(Duration.ofMillis(10)))) {
                assertTrue(waitFor(() -> service.stats().passes() > 0), "the loop ran a pass");
                assertFalse(service.runsAtLowPriority());
                assertEquals(OptionalInt.of(0), policyOf("floe-anchorage"), "the thread keeps SCHED_OTHER");
            }
            space.close();
        }
    }

    private static boolean waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!c.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(5);
        return c.getAsBoolean();
    }

    /** The scheduling policy of the live thread named {@code name} (field 41 of /proc/self/task/TID/stat). */
    private static OptionalInt policyOf(String name) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String comm;
                try {
                    comm = Files.readString(t.resolve("comm")).strip();
                } catch (IOException gone) {
                    continue; // the thread ended meanwhile
                }
                if (!comm.equals(name)) continue;
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException gone) {
                    continue; // an earlier service's thread of that name ended meanwhile
                }
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // fields from 3 on
                return OptionalInt.of(Integer.parseInt(f[41 - 3]));
            }
        }
        return OptionalInt.empty();
    }
}
