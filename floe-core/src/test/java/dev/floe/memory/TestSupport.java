package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Helpers shared by the memory-layer tests. */
final class TestSupport {
    /** Small regions keep the tests cheap: 1 GiB of address space, half of it for large runs. */
    static final long REGION = 1L << 30;
    static final long PAGE = 4096;

    private static final AtomicInteger NAMES = new AtomicInteger();

    private TestSupport() {}

    /** A builder with a small region, the given mode and a unique name. */
    static FloeAllocator.Builder builder(RegionMode mode) {
        return FloeAllocator.builder()
                .regionSize(REGION)
                .mode(mode)
                .name("test-" + mode + "-" + NAMES.incrementAndGet());
    }

    static FloeAllocator open(RegionMode mode) {
        return builder(mode).build();
    }

    /** A test thread's body; it may throw anything, which fails the test. */
    interface ThreadBody {
        void run(int id) throws Exception;
    }

    /** Runs {@code body} on {@code threads} platform threads (ids 0..threads-1), waits for all, rethrows the first failure. */
    static void runThreads(int threads, ThreadBody body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    body.run(id);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            th.start();
            started.add(th);
        }
        for (Thread th : started) th.join();
        if (failure.get() != null) throw new AssertionError(failure.get());
    }

    static long pageRound(long size) {
        return (size + PAGE - 1) & -PAGE;
    }

    /** First offset of the large area of an allocator built with region size {@code regionSize}. */
    static long smallLimit(FloeAllocator a) {
        return a.region().size() - a.maxAllocation();
    }

    /**
     * Checks the relations between the fields of a stats snapshot that hold whenever no other
     * thread is using the allocator.
     */
    static void assertQuiescentStatsConsistent(MemoryStats s, long superblockSize) {
        long classLive = 0;
        long classSuperblocks = 0;
        for (MemoryStats.ClassStats c : s.classes()) {
            assertEquals(SizeClasses.blockSize(c.sizeClass()), c.blockSize(), () -> "block size of " + c);
            assertTrue(c.liveBlocks() >= 0, () -> "negative live blocks: " + c + " in " + s);
            assertTrue(c.superblocks() >= 0, () -> "negative superblocks: " + c + " in " + s);
            assertTrue(c.liveBlocks() <= c.superblocks() * (superblockSize / c.blockSize()),
                    () -> "more live blocks than its superblocks hold: " + c + " in " + s);
            classLive += c.liveBlocks() * c.blockSize();
            classSuperblocks += c.superblocks();
        }
        long inUse = s.superblocksFull() + s.superblocksPartial();
        assertTrue(s.superblocksFull() >= 0 && s.superblocksPartial() >= 0 && s.superblocksEmpty() >= 0,
                () -> "negative superblock count: " + s);
        assertEquals(inUse, classSuperblocks, () -> "per-class superblocks vs full+partial: " + s);
        assertEquals(classLive + s.largeLiveBytes(), s.liveBytes(),
                () -> "live bytes vs per-class live blocks + large live bytes: " + s);
        assertEquals(inUse * superblockSize + s.largeLiveBytes(), s.committedBytes(),
                () -> "committed bytes vs (full+partial) superblocks + large live bytes: " + s);
        assertTrue(s.liveBytes() <= s.committedBytes(), () -> "live > committed: " + s);
        assertTrue(s.cachedBytes() >= 0 && classLive + s.cachedBytes() <= inUse * superblockSize,
                () -> "live small + cached bytes exceed the superblocks in use: " + s);
        assertTrue(s.committedBytes() <= s.budgetBytes(), () -> "committed above budget: " + s);
        assertTrue(s.largeRuns() >= 0 && s.largeLiveBytes() >= s.largeRuns() * PAGE,
                () -> "large runs: " + s);
        assertTrue(s.largeLiveBytes() % PAGE == 0, () -> "large live bytes not page multiple: " + s);
        assertTrue(s.superblockReleases() >= 0, () -> "releases: " + s);
    }

    static void assertQuiescentStatsConsistent(FloeAllocator a, long superblockSize) {
        assertQuiescentStatsConsistent(a.stats(), superblockSize);
    }

    static void assertQuiescentStatsConsistent(FloeAllocator a) {
        assertQuiescentStatsConsistent(a.stats(), FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
    }

    /** Asserts that nothing is live or committed any more (after freeing everything and trim). */
    static void assertEverythingReturned(FloeAllocator a, long superblockSize) {
        MemoryStats s = a.stats();
        assertQuiescentStatsConsistent(s, superblockSize);
        assertEquals(0, s.liveBytes(), () -> "live bytes after freeing everything: " + s);
        assertEquals(0, s.committedBytes(), () -> "committed bytes after freeing everything + trim: " + s);
        assertEquals(0, s.cachedBytes(), () -> "cached bytes after trim: " + s);
        assertEquals(0, s.superblocksFull() + s.superblocksPartial(), () -> "superblocks in use: " + s);
        assertEquals(0, s.largeRuns(), () -> "large runs: " + s);
        assertTrue(s.classes().isEmpty(), () -> "classes still listed: " + s);
    }

    /** Allocate-write-read-free round trip proving the allocator still works. */
    static void assertStillWorks(FloeAllocator a) {
        long small = a.allocate(40);
        long large = a.allocate(SizeClasses.MAX_SMALL + 1);
        long largeLastWord = large + a.usableSize(large) - 8;
        a.region().setLongPlain(small, 0x5EED_0001L);
        a.region().setLongPlain(largeLastWord, 0x5EED_0002L);
        assertEquals(0x5EED_0001L, a.region().getLongPlain(small));
        assertEquals(0x5EED_0002L, a.region().getLongPlain(largeLastWord));
        a.free(small);
        a.free(large);
    }
}
