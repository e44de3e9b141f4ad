package dev.floe.handle;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The background loop's edge cases an audit found on 2026-11-24 (each test failed before its
 * fix): a JVM with thread CPU time switched off, a moveEverything loop whose passes fail, the
 * state {@code stats()} reports after close, and a chunk size the allocator cannot provide.
 */
class AnchorageLoopEdgeTest {
    private static final int SIZE = 240;

    /** {@code n} objects, every other one freed: a half-empty area for the loop to compact. */
    private static void halfEmpty(HandleSpace space, int n) {
        long[] all = HandleTestSupport.numberedObjects(space, n, SIZE);
        for (int i = 1; i < n; i += 2) space.free(all[i]);
        space.drainRetired();
    }

    private static DefragConfig everything(Duration wake) {
        return DefragConfig.DEFAULTS.withMoveEverything(true).withLowPriority(false).withWakeInterval(wake);
    }

    /**
     * The overhead bound needs each pass's time: with thread CPU time switched off the JVM answers
     * -1 for it, and the loop measured every pass as 0 ns and never slept (99% of the wall time in
     * passes, where the bound allows about 5%). Now it counts wall-clock time instead.
     */
    @Test
    void theOverheadBoundHoldsWithThreadCpuTimeSwitchedOff() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean was = threads.isThreadCpuTimeEnabled();
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            halfEmpty(space, 20_000);
            DefragStats st;
            long elapsed;
            threads.setThreadCpuTimeEnabled(false);
            try {
                long t0 = System.nanoTime();
                Anchorage a = Anchorage.start(space, everything(Duration.ofMillis(5)));
                Thread.sleep(1000);
                a.close();
                elapsed = System.nanoTime() - t0;
                st = a.stats();
            } finally {
                threads.setThreadCpuTimeEnabled(was);
            }
            assertTrue(st.passes() > 0, "the loop ran: " + st);
            assertTrue(st.loopPassCpuNanos() > 0, "passes measured in wall-clock time: " + st);
            double inPasses = (double) st.totalPassNanos() / elapsed;
            assertTrue(inPasses <= 0.25, "passes took " + inPasses + " of the wall time with O_ub "
                    + DefragConfig.DEFAULTS.overheadBound() + ": " + st);
            space.close();
        }
    }

    /** A moveEverything pass that fails (no budget for the copies) goes back to waiting, as its WARNING says. */
    @Test
    void aFailingMoveEverythingLoopWaitsBeforeItsNextPass() throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).budget(8L << 20).jmx(false)
                .name("anchorage-loop-budget").build()) {
            HandleSpace space = new HandleSpace(alloc);
            try {
                while (true) space.allocate(SIZE);
            } catch (FloeOutOfMemoryException full) {
                // the area fills the budget: no pass can copy anything
            }
            try (Anchorage first = Anchorage.manual(space, everything(Duration.ofSeconds(1)))) {
                // a pass fails for the budget (and its code is loaded: the loop's first pass then
                // takes a few milliseconds, so that the loop would retry every few tens of them)
                assertThrows(FloeOutOfMemoryException.class, first::runPass);
            }
            Logger log = Logger.getLogger("dev.floe.handle");
            Level level = log.getLevel();
            log.setLevel(Level.OFF); // each failed pass logs a WARNING with its stack trace
            try (Anchorage a = Anchorage.start(space, everything(Duration.ofSeconds(1)))) {
                // passes at about 1 and 2 s, each after a wake interval (before: one every T_pass / O_ub,
                // 431 in 2.5 s)
                Thread.sleep(2500);
                assertTrue(a.failedPasses() >= 1, "the passes failed: " + a.stats());
                assertTrue(a.failedPasses() <= 3, a.failedPasses() + " failed passes in 2.5 s with a 1 s wake interval");
            } finally {
                log.setLevel(level);
            }
            space.close();
        }
    }

    @Test
    void afterCloseTheStatsDoNotSayDefragmenting() throws Exception {
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            halfEmpty(space, 2_000);
            Anchorage a = Anchorage.start(space, everything(Duration.ofMillis(1)));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.stats().passes() < 2 && System.nanoTime() < deadline) Thread.sleep(5);
            assertTrue(a.stats().passes() >= 2, "the loop was defragmenting: " + a.stats());
            a.close();
            assertFalse(a.isRunning());
            assertFalse(a.stats().defragmenting(), "closed: " + a.stats());
            space.close();
        }
    }

    /** A chunk is one allocation: a heap whose chunks the allocator cannot provide is refused when it is built. */
    @Test
    void aChunkAboveTheAllocatorsLargestAllocationIsRefused() {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(8L << 20).jmx(false).name("anchorage-small").build()) {
            assertTrue(alloc.maxAllocation() < (8L << 20));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AnchorageHeap(alloc, 8L << 20));
            assertTrue(e.getMessage().contains("largest allocation"), e.getMessage());
            new AnchorageHeap(alloc, 1L << 20); // one that fits is accepted
        }
    }
}
