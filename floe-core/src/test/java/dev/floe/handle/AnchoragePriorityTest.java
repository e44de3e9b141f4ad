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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The service thread takes Linux's SCHED_IDLE scheduling policy by default, and keeps the normal one when asked to. */
class AnchoragePriorityTest {

    @Test
    void theServiceThreadRunsUnderSchedIdleByDefault() throws Exception {
        assumeTrue(Region.detectMode() == RegionMode.MAPPED, "Linux with native access");
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            // A closed service's thread has ended for Java (close joins it) before its kernel task
            // leaves /proc, so wait for earlier tasks of that name to go before checking a new one.
            assertTrue(waitFor(() -> policiesOf(NAME).isEmpty()), "earlier services' threads left");
            try (Anchorage service = Anchorage.start(space, DefragConfig.DEFAULTS.withWakeInterval(Duration.ofMillis(10)))) {
                assertTrue(waitFor(service::runsAtLowPriority), "the loop lowered its priority");
                assertEquals(List.of(BackgroundPriority.SCHED_IDLE), policiesOf(NAME));
            }
            assertTrue(waitFor(() -> policiesOf(NAME).isEmpty()), "the first service's thread left");
            // moveEverything: the loop runs passes at once, so a pass proves it is past its start,
            // where a lowered priority would have been taken
            try (Anchorage service = Anchorage.start(space, DefragConfig.DEFAULTS.withLowPriority(false)
                    .withMoveEverything(true).withWakeInterval(Duration.ofMillis(10)))) {
                assertTrue(waitFor(() -> service.stats().passes() > 0), "the loop ran a pass");
                assertFalse(service.runsAtLowPriority());
                assertEquals(List.of(0), policiesOf(NAME), "the thread keeps SCHED_OTHER");
            }
            space.close();
        }
    }

    private static final String NAME = "floe-anchorage";

    private static boolean waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!c.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(5);
        return c.getAsBoolean();
    }

    /** The scheduling policies of the live threads named {@code name} (field 41 of /proc/self/task/TID/stat). */
    private static List<Integer> policiesOf(String name) {
        List<Integer> policies = new ArrayList<>();
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
                policies.add(Integer.parseInt(f[41 - 3]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return policies;
    }
}
