package dev.floe.memory;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Region#scopedView}: a view in an arena of its own never reaches unmapped memory. In a
 * mapped region it keeps the address range mapped past the region's close (reading zeros) and the
 * range is unmapped when the last such view's arena closes; a chunked region hands out the slice
 * itself. Before, a shield's view (the only user) read the unmapped range after the allocator's
 * close and the JVM died.
 */
class ScopedViewTest {
    private static final long REGION = 1L << 28, SUPERBLOCK = 1L << 16;

    @Test
    void aViewOutlivesTheRegionsCloseReadingZerosAndTheRangeIsUnmappedWhenItsArenaCloses() throws IOException {
        Region r = openMapped();
        long base = r.slice(0, 1).address();
        r.slice(0, 64).set(ValueLayout.JAVA_LONG, 8, 42L);
        Arena arena = Arena.ofConfined();
        MemorySegment view = r.scopedView(r.slice(0, 64), arena);
        assertEquals(42L, view.get(ValueLayout.JAVA_LONG, 8));

        r.close();
        assertThrows(IllegalStateException.class, () -> r.slice(0, 64).get(ValueLayout.JAVA_LONG, 8), "the region's own slices die");
        assertTrue(mapped(base), "a live view keeps the range mapped");
        assertEquals(0L, view.get(ValueLayout.JAVA_LONG, 8), "the close gave the pages back: zeros, no fault");
        view.set(ValueLayout.JAVA_LONG, 8, 7L); // commits a page again, until the view's arena closes
        assertEquals(7L, view.get(ValueLayout.JAVA_LONG, 8));
        assertThrows(IllegalStateException.class, () -> r.scopedView(r.slice(0, 64), Arena.ofAuto()), "no new view after the close");

        arena.close();
        assertThrows(IllegalStateException.class, () -> view.get(ValueLayout.JAVA_LONG, 8), "the view died with its arena");
        assertFalse(mapped(base), "the last view's close unmapped the range");
    }

    @Test
    void withoutLiveViewsTheCloseUnmapsAtOnce() throws IOException {
        Region r = openMapped();
        long base = r.slice(0, 1).address();
        try (Arena arena = Arena.ofConfined()) {
            r.scopedView(r.slice(0, 64), arena).set(ValueLayout.JAVA_LONG, 0, 1L);
        }
        assertTrue(mapped(base));
        r.close();
        assertFalse(mapped(base));
    }

    @Test
    void onlySlicesOfTheRegionAreAccepted() {
        try (Region r = Region.open(REGION, SUPERBLOCK, RegionMode.MAPPED);
             Region other = Region.open(REGION, SUPERBLOCK, RegionMode.MAPPED);
             Arena arena = Arena.ofConfined()) {
            r.commit(0, SUPERBLOCK);
            other.commit(0, SUPERBLOCK);
            assertThrows(IllegalArgumentException.class, () -> r.scopedView(other.slice(0, 8), arena));
            assertThrows(IllegalArgumentException.class, () -> r.scopedView(arena.allocate(8), arena));
            assertThrows(IllegalArgumentException.class, () -> r.scopedView(r.slice(0, 8).reinterpret(REGION + 1), arena));
        }
    }

    @Test
    void aChunkedRegionHandsOutTheSliceItself() {
        Region r = Region.open(REGION, SUPERBLOCK, RegionMode.ARENA_CHUNKS);
        r.commit(0, SUPERBLOCK);
        MemorySegment slice = r.slice(0, 64);
        try (Arena arena = Arena.ofConfined()) {
            assertSame(slice, r.scopedView(slice, arena));
        }
        r.close();
        assertThrows(IllegalStateException.class, () -> slice.get(ValueLayout.JAVA_LONG, 0), "dies with the region");
        assertThrows(IllegalStateException.class, () -> r.scopedView(slice, Arena.ofAuto()));
    }

    /**
     * Threads take and drop views in a loop while the region closes: nothing faults, every view
     * taken works until its arena closes, and the range ends up unmapped exactly when the last
     * view is gone (an unmapping under a live view would crash this JVM).
     */
    @Test
    void viewsRacingTheCloseNeverFaultAndTheLastOneUnmaps() throws Exception {
        for (int round = 0; round < 20; round++) {
            Region r = openMapped();
            long base = r.slice(0, 1).address();
            int threads = 3;
            CountDownLatch started = new CountDownLatch(threads), closed = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final long offset = t * 64L;
                Thread th = new Thread(() -> {
                    started.countDown();
                    try {
                        while (true) {
                            MemorySegment s;
                            try {
                                s = r.slice(offset, 64);
                            } catch (IllegalStateException e) {
                                break; // closed
                            }
                            try (Arena a = Arena.ofConfined()) {
                                MemorySegment v = r.scopedView(s, a);
                                for (int i = 0; i < 100; i++) v.set(ValueLayout.JAVA_LONG, 0, v.get(ValueLayout.JAVA_LONG, 0) + 1);
                                if (closed.getCount() == 0) { // the region closed under this view: it still works
                                    v.set(ValueLayout.JAVA_LONG, 8, 3L);
                                    assertEquals(3L, v.get(ValueLayout.JAVA_LONG, 8));
                                }
                            } catch (IllegalStateException e) {
                                break; // the close won the race for this view
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                ts.add(th);
                th.start();
            }
            started.await();
            Thread.sleep(1);
            r.close();
            closed.countDown();
            for (Thread th : ts) th.join();
            assertNull(failure.get(), () -> "a view failed: " + failure.get());
            assertFalse(mapped(base), "round " + round + ": the range is unmapped once every view is gone");
        }
    }

    /**
     * System calls on the range (madvise of a released superblock, mincore of the statistics)
     * racing the close: they hold the range like views do, so each either runs on the still
     * mapped range or is refused with IllegalStateException. Before, a call that passed the
     * "is the region open" check just before the close's munmap made its madvise on an unmapped
     * range (ENOMEM, a NativeMemoryException here; on a range some other mapping had taken since,
     * it would have zeroed that mapping's pages).
     */
    @Test
    void systemCallsRacingTheCloseRunOnAMappedRangeOrAreRefused() throws Exception {
        for (int round = 0; round < 200; round++) {
            Region r = openMapped();
            long base = r.slice(0, 1).address();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(2);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                final boolean release = t == 0;
                Thread th = new Thread(() -> {
                    started.countDown();
                    try {
                        while (true) {
                            if (release) r.release(0, Libc.PAGE_SIZE);
                            else r.residentBytes(0, SUPERBLOCK);
                        }
                    } catch (IllegalStateException closed) {
                        // refused: the region closed
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                ts.add(th);
                th.start();
            }
            started.await();
            r.close();
            for (Thread th : ts) th.join();
            int rd = round;
            assertNull(failure.get(), () -> "round " + rd + ": a system call reached the closed range: " + failure.get());
            assertFalse(mapped(base));
        }
    }

    /** A mapped region with its first superblock committed. */
    private static Region openMapped() {
        Region r = Region.open(REGION, SUPERBLOCK, RegionMode.MAPPED);
        r.commit(0, SUPERBLOCK);
        return r;
    }

    /** Whether {@code address} lies in a mapping of this process. */
    static boolean mapped(long address) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            int dash = line.indexOf('-'), space = line.indexOf(' ');
            long from = Long.parseUnsignedLong(line.substring(0, dash), 16);
            long to = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0) return true;
        }
        return false;
    }
}
