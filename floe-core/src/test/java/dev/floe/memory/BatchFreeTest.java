package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link FloeAllocator#free(long[], int, int)}: a batch of frees under one cache stripe claim. */
class BatchFreeTest {

    private static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 30).jmx(false).build();
    }

    /** A batch of small blocks of many classes and large runs frees exactly its range; the blocks are reused. */
    @Test
    void freesExactlyTheRangeSmallAndLarge() {
        try (FloeAllocator a = allocator()) {
            Random r = new Random(7);
            long[] offs = new long[600];
            long[] sizes = new long[offs.length];
            for (int i = 0; i < offs.length; i++) {
                sizes[i] = i % 50 == 0 ? 20_000 + r.nextInt(50_000) : 1 + r.nextInt(SizeClasses.MAX_SMALL);
                offs[i] = a.allocate(sizes[i]);
            }
            long keptBytes = 0;
            for (int i = 0; i < 100; i++) keptBytes += a.usableSize(offs[i]);
            for (int i = 500; i < offs.length; i++) keptBytes += a.usableSize(offs[i]);
            a.free(offs, 100, 500);
            assertEquals(keptBytes, a.stats().liveBytes());
            for (int i = 100; i < 500; i++) {
                long off = offs[i];
                assertThrows(IllegalFreeException.class, () -> a.free(off), "freed by the batch: a second free is refused");
            }
            for (int i = 0; i < 100; i++) assertEquals(a.usableSizeFor(sizes[i]), a.usableSize(offs[i]), "still live");
            a.free(offs, 0, 100);
            a.free(offs, 500, offs.length);
            a.free(offs, 3, 3); // empty range
            assertEquals(0, a.stats().liveBytes());
            a.trim();
            assertEquals(0, a.stats().cachedBytes());
        }
    }

    /**
     * The first bad offset stops the batch: the blocks before it are freed, those after it stay
     * live, and the cache stripe the batch held is given back (one stripe here: a stripe left
     * claimed would make {@link FloeAllocator#trim()} wait for ever).
     */
    @Test
    void stopsAtTheFirstBadOffset() {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).cacheStripes(1).build()) {
            long[] offs = new long[10];
            for (int i = 0; i < offs.length; i++) offs[i] = a.allocate(64);
            long cached = a.stats().cachedBytes();
            long[] batch = offs.clone();
            batch[4] = offs[4] + 8; // inside a block
            IllegalFreeException e = assertThrows(IllegalFreeException.class, () -> a.free(batch, 0, batch.length));
            assertTrue(e.getMessage().contains(Long.toString(batch[4])), e.getMessage());
            for (int i = 0; i < 4; i++) {
                long off = offs[i];
                assertThrows(IllegalFreeException.class, () -> a.free(off), "freed before the bad offset");
            }
            for (int i = 4; i < offs.length; i++) assertEquals(64, a.usableSize(offs[i]), "not freed: at or after the bad offset");
            assertEquals(cached + 4 * 64, a.stats().cachedBytes(), "the four freed blocks went to the cache");
            assertTimeoutPreemptively(Duration.ofSeconds(10), a::trim, "trim waits for a stripe the refused batch kept");
            assertEquals(0, a.stats().cachedBytes());
            long[] twice = {offs[5], offs[5]};
            assertThrows(IllegalFreeException.class, () -> a.free(twice, 0, 2), "a double free inside one batch");
            assertThrows(IllegalArgumentException.class, () -> a.usableSize(offs[5]), "the first free of the pair went through");
            a.free(offs, 6, offs.length);
            a.free(offs[4]);
            assertEquals(0, a.stats().liveBytes());
        }
    }

    @Test
    void badRangesAndAClosedAllocatorAreRefused() {
        FloeAllocator a = allocator();
        long[] offs = {a.allocate(8)};
        assertThrows(IndexOutOfBoundsException.class, () -> a.free(offs, 0, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> a.free(offs, 1, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> a.free(offs, -1, 1));
        assertEquals(8, a.usableSize(offs[0]), "a refused range frees nothing");
        a.close();
        assertThrows(IllegalStateException.class, () -> a.free(offs, 0, 1));
    }

    /**
     * Threads freeing batches while others allocate and free one by one, with few cache stripes
     * so that claims collide (a batch finding every stripe busy goes to the heap): every block is
     * written by its holder and checked before it is freed, so a block handed out twice shows.
     */
    @Test
    void concurrentBatchesKeepBlocksExclusive() throws Exception {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).cacheStripes(2).build()) {
            TestSupport.runThreads(4, id -> {
                Random r = new Random(id);
                long[] batch = new long[200];
                for (int round = 0; round < 300; round++) {
                    int n = 1 + r.nextInt(batch.length);
                    for (int i = 0; i < n; i++) {
                        batch[i] = a.allocate(8 + 8 * r.nextInt(300));
                        a.region().setLongPlain(batch[i], ((long) id << 48) | ((long) round << 16) | i);
                    }
                    for (int i = 0; i < n; i++) {
                        long want = ((long) id << 48) | ((long) round << 16) | i;
                        if (a.region().getLongPlain(batch[i]) != want) throw new AssertionError("block " + batch[i] + " was handed out twice");
                    }
                    if (id % 2 == 0) a.free(batch, 0, n);
                    else for (int i = 0; i < n; i++) a.free(batch[i]);
                }
            });
            assertEquals(0, a.stats().liveBytes());
        }
    }
}
