package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static dev.floe.memory.TestSupport.assertQuiescentStatsConsistent;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.management.JMX;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The allocator's public API as a demanding user meets it, beyond {@link MisuseTest} and
 * {@link FloeAllocatorTest}: the budget after frees, builder options that cannot work, the
 * region's argument checks in both modes, and what the exception and the statistics report.
 */
class AllocatorApiEdgeCaseTest {
    private static final long MIB = 1L << 20;
    private static final long SB = FloeAllocator.DEFAULT_SUPERBLOCK_SIZE;

    /**
     * Freed blocks wait in the cache stripes and keep their superblocks committed. Memory freed
     * to the last byte must still be available to an allocation of another size without the
     * caller knowing about {@link FloeAllocator#trim()}: before, the whole budget was refused
     * while cached blocks held a superblock of it.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void memoryFreedToTheLastByteIsAvailableToAnySizeWithoutTrim(RegionMode mode) {
        long budget = 4 * MIB;
        try (FloeAllocator a = TestSupport.builder(mode).budget(budget).jmx(false).build()) {
            List<Long> blocks = new ArrayList<>();
            long[] sizes = {24, 1000, 5000};
            try {
                for (int i = 0; ; i++) blocks.add(a.allocate(sizes[i % sizes.length]));
            } catch (FloeOutOfMemoryException full) {
                assertEquals(budget, full.budgetBytes());
            }
            for (long off : blocks) a.free(off);
            MemoryStats freed = a.stats();
            assertEquals(0, freed.liveBytes());
            assertTrue(freed.cachedBytes() > 0 && freed.committedBytes() > 0,
                    () -> "the caches hold freed blocks and their superblocks: " + freed);

            long whole = assertDoesNotThrow(() -> a.allocate(budget), () -> "nothing is live: " + a.stats());
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, SB);
            assertEquals(budget, s.committedBytes(), s::toString);
            assertEquals(0, s.cachedBytes(), "the caches were flushed to make room");
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(8), "the budget is really full");
            a.free(whole);
            // and the small classes can have all of it again
            blocks.clear();
            try {
                while (true) blocks.add(a.allocate(1000));
            } catch (FloeOutOfMemoryException full) {
                assertTrue(blocks.size() * 1024L > budget - SB, () -> blocks.size() + " blocks of 1 KiB");
            }
            for (long off : blocks) a.free(off);
            a.trim();
            assertEverythingReturned(a, SB);
        }
    }

    /** A budget that cannot hold one superblock can serve no small block: refused by build(). */
    @Test
    void aBudgetBelowOneSuperblockIsRefusedAtBuild() {
        for (long sb : new long[] {64 << 10, SB, 8 * MIB}) {
            for (long budget : new long[] {1, 4096, sb - 1}) {
                FloeAllocator.Builder b = FloeAllocator.builder().regionSize(64 * sb).superblockSize(sb)
                        .budget(budget).jmx(false);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build,
                        () -> "budget " + budget + " with superblocks of " + sb);
                assertTrue(e.getMessage().contains("superblock") && e.getMessage().contains(Long.toString(budget)),
                        e.getMessage());
            }
        }
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).budget(SB).jmx(false).build()) {
            a.free(a.allocate(8)); // exactly one superblock: usable
        }
    }

    /**
     * Superblock 0 is reserved (offset 0 is "null") and never carved: pre-touching it costs its
     * memory for the life of the allocator and speeds up nothing. The touch covers the first
     * superblocks that are handed out.
     */
    @Test
    void preTouchCoversTheFirstCarvedSuperblocksNotTheReservedOne() {
        long sb = 1 * MIB;
        try (FloeAllocator a = FloeAllocator.builder().regionSize(256 * MIB).superblockSize(sb)
                .preTouch(2 * MIB).jmx(false).build()) {
            assumeTrue(a.mode() == RegionMode.MAPPED, "chunked regions have nothing to touch");
            assertEquals(0, a.region().residentBytes(0, sb), "the reserved superblock stays untouched");
            assertEquals(2 * MIB, a.region().residentBytes(sb, 3 * sb), "the first two carved superblocks");
            long first = a.allocate(64);
            assertTrue(first >= sb && first < 2 * sb, "the first block comes from superblock 1: " + first);
            a.free(first);
        }
    }

    /**
     * {@link Region#open} rounds the mapping's start up with a mask and unmaps the rest by pages,
     * which only works for a power of two of at least a page: 6000 made a failing munmap that
     * leaked the reservation. A null mode opened a chunked region as if it were a mode.
     */
    @Test
    void regionOpenRefusesAlignmentsItCannotHonourAndANullMode() {
        for (RegionMode mode : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            for (long alignment : new long[] {6000, 3 * 4096, 8, 2048, 0, -4096}) {
                long size = alignment > 0 ? alignment * 1000 : 1 << 20;
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> Region.open(size, alignment, mode), () -> mode + ", alignment " + alignment);
                assertTrue(e.getMessage().contains(Long.toString(alignment)), e.getMessage());
            }
            try (Region r = Region.open(1 << 20, 4096, mode)) {
                assertEquals(mode, r.mode()); // one page: the smallest alignment that works
            }
        }
        assertThrows(NullPointerException.class, () -> Region.open(1 << 20, 4096, null));
        assertThrows(NullPointerException.class, () -> Region.open(1 << 20, 4096, RegionMode.AUTO, null));
    }

    /** release() documents page-aligned ranges; the chunked region zero-filled a live block's bytes instead. */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void releaseRefusesRangesThatAreNotPageAlignedInBothModes(RegionMode mode) {
        try (FloeAllocator a = TestSupport.builder(mode).jmx(false).build()) {
            long off = a.allocate(100);
            a.region().setLongPlain(off, 42);
            long page = off & -TestSupport.PAGE;
            for (long[] range : new long[][] {{off, 100}, {page, 100}, {page + 8, TestSupport.PAGE}}) {
                assertThrows(IllegalArgumentException.class, () -> a.region().release(range[0], range[1]),
                        () -> "release(" + range[0] + ", " + range[1] + ")");
            }
            assertEquals(42, a.region().getLongPlain(off), "a refused release changed nothing");
            assertThrows(IndexOutOfBoundsException.class, () -> a.region().release(-TestSupport.PAGE, TestSupport.PAGE));
            a.free(off);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void outOfMemoryExceptionReportsTheBudgetOrNone(RegionMode mode) {
        try (FloeAllocator a = TestSupport.builder(mode).budget(SB).jmx(false).build()) {
            FloeOutOfMemoryException e = assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(2 * SB));
            assertEquals(SB, e.budgetBytes());
            assertEquals(2 * SB, e.requestedBytes());
            assertEquals(0, e.liveBytes());
            assertEquals(0, e.committedBytes());
        }
        long sb = 64 << 10;
        try (FloeAllocator a = TestSupport.builder(mode).regionSize(16 * sb).superblockSize(sb).jmx(false).build()) {
            long half = a.allocate(a.maxAllocation() / 2);
            FloeOutOfMemoryException e = assertThrows(FloeOutOfMemoryException.class,
                    () -> a.allocate(a.maxAllocation()));
            assertEquals(Long.MAX_VALUE, e.budgetBytes(), "no budget: the address space ran out");
            a.free(half);
        }
    }

    /** A huge stripe count made build() die of OutOfMemoryError (about 26 KiB of heap per stripe). */
    @Test
    void cacheStripesAreBoundedWithAClearMessage() {
        for (int stripes : new int[] {FloeAllocator.MAX_CACHE_STRIPES * 2, 1 << 20, 1 << 30, 0, -4, 12}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> FloeAllocator.builder().cacheStripes(stripes), () -> "cacheStripes(" + stripes + ")");
            assertTrue(e.getMessage().contains(Integer.toString(stripes)), e.getMessage());
        }
        assertDoesNotThrow(() -> FloeAllocator.builder().cacheStripes(FloeAllocator.MAX_CACHE_STRIPES));
    }

    /** Every scalar of {@link MemoryStats} is an MXBean attribute; large live bytes were missing. */
    @Test
    void theMxBeanReportsLargeLiveBytes() throws Exception {
        String name = "edge-mx-large-" + System.nanoTime();
        try (FloeAllocator a = FloeAllocator.builder().regionSize(TestSupport.REGION).name(name).build()) {
            ObjectName on = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(name));
            FloeAllocatorMXBean proxy = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(), on,
                    FloeAllocatorMXBean.class);
            long run = a.allocate(50_000);
            assertEquals(a.stats().largeLiveBytes(), proxy.getLargeLiveBytes());
            assertEquals(TestSupport.pageRound(50_000), proxy.getLargeLiveBytes());
            a.free(run);
            assertEquals(0, proxy.getLargeLiveBytes());
        }
    }

    /**
     * Resident bytes follow what is touched and what is given back: written blocks are resident,
     * a freed large run and trimmed superblocks are not (mapped mode: {@code mincore}).
     */
    @Test
    void residentBytesFollowWritesFreesAndReleases() {
        try (FloeAllocator a = TestSupport.builder(RegionMode.MAPPED).jmx(false).build()) {
            long run = a.allocate(MIB);
            a.segment(run).fill((byte) 1);
            long[] small = new long[4000];
            for (int i = 0; i < small.length; i++) {
                small[i] = a.allocate(200);
                a.region().setLongPlain(small[i], i);
            }
            MemoryStats touched = a.stats();
            assertTrue(touched.residentBytes() >= MIB + small.length * 200L, touched::toString);
            assertTrue(touched.residentBytes() <= touched.committedBytes(), touched::toString);

            a.free(run);
            MemoryStats runFreed = a.stats();
            assertEquals(touched.committedBytes() - MIB, runFreed.committedBytes());
            assertTrue(runFreed.residentBytes() <= touched.residentBytes() - MIB, runFreed::toString);

            for (long off : small) a.free(off);
            a.trim();
            MemoryStats empty = a.stats();
            assertEverythingReturned(a, SB);
            assertEquals(0, empty.residentBytes(), () -> "released superblocks are not resident: " + empty);
            assertTrue(empty.toString().contains("resident=0"), empty::toString);
        }
    }

    /**
     * {@link FloeAllocator#blockSizeAt} "never throws": random longs, before and after close, get
     * 0 or the block size of a real block start, and live blocks report their usable size.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void blockSizeAtNeverThrowsAndOnlyNamesBlockStarts(RegionMode mode) {
        FloeAllocator a = TestSupport.builder(mode).jmx(false).build();
        Random rnd = new Random(0xB10C);
        long[] live = new long[300];
        for (int i = 0; i < live.length; i++) live[i] = a.allocate(1 + rnd.nextInt(20_000));
        for (long off : live) {
            int size = a.blockSizeAt(off);
            assertEquals(off < TestSupport.smallLimit(a) ? a.usableSize(off) : 0, size, "block at " + off);
            if (size > 8) assertEquals(0, a.blockSizeAt(off + 8), "inside the block at " + off);
        }
        long[] probes = new long[20_000];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = switch (i % 3) {
                case 0 -> rnd.nextLong();
                case 1 -> rnd.nextLong(4 * MIB) & -8;
                default -> live[rnd.nextInt(live.length)] + 8L * rnd.nextInt(-4, 5);
            };
        }
        int[] before = new int[probes.length];
        for (int i = 0; i < probes.length; i++) before[i] = a.blockSizeAt(probes[i]);
        a.close();
        for (int i = 0; i < probes.length; i++) {
            assertEquals(before[i], a.blockSizeAt(probes[i]), "blockSizeAt after close, offset " + probes[i]);
        }
    }

    /**
     * {@link FloeAllocator#trim()} (which an allocation now runs before it fails for the budget)
     * waits for a stripe's holder by parking; an interrupted thread's park returns at once, so an
     * interrupted virtual thread spun on its carrier and the unmounted holder never ran again
     * (the scenario of {@link VirtualThreadsTest}, with the trimmer interrupted). The wait must
     * park for real and leave the interrupt set for the caller.
     */
    @Test
    void anInterruptedTrimmerStillLetsAnUnmountedStripeHolderRun(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = ChildJvm.run(dir, VirtualThreadTrimChildMain.class, 60,
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-Dfloe.test.interruptedTrimmer=true",
                "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1");
        String output = r.stdout() + r.stderr();
        assertTrue(output.contains("trim finished"), "trim() on an interrupted virtual thread never finished:\n" + output);
        assertTrue(output.contains("interrupt kept"), "trim() swallowed the caller's interrupt:\n" + output);
        assertEquals(0, r.exit(), output);
    }

    /**
     * A build that fails after the region was reserved (here the heap cannot hold the superblock
     * directory of a 4 TiB region) gives the reservation back: there is no allocator to close.
     */
    @Test
    void aBuildThatFailsUnmapsItsRegion(@TempDir Path dir) throws Exception {
        ChildJvm.Result r = ChildJvm.run(dir, FailedBuildChildMain.class, 60,
                "--enable-native-access=ALL-UNNAMED", "-Xmx64m");
        String output = r.stdout() + r.stderr();
        assertEquals(0, r.exit(), output);
        assertTrue(r.stdout().contains("thrown=OutOfMemoryError"), output);
        String[] kib = r.stdout().substring(r.stdout().indexOf("vmsize=") + 7).trim().split(",");
        long grown = Long.parseLong(kib[1].trim()) - Long.parseLong(kib[0].trim());
        assertTrue(grown < (1L << 30), "the 4 TiB reservation stayed mapped: the process grew by " + grown + " KiB");
    }

    /**
     * In the arena-chunks mode a chunk the arena cannot allocate is a {@link NativeMemoryException}
     * that leaves nothing charged, not an {@link OutOfMemoryError} that kept the request's bytes
     * in the budget's committed count for good. Asks for 2 TiB, which Linux's default overcommit
     * heuristic (and strict accounting) refuses; skipped under "always overcommit", where the
     * arena would zero 2 TiB.
     */
    @Test
    void aChunkTheArenaCannotAllocateChargesNothing() throws Exception {
        String overcommit = java.nio.file.Files.readString(Path.of("/proc/sys/vm/overcommit_memory")).trim();
        assumeTrue(!overcommit.equals("1"), "vm.overcommit_memory=1 would let the arena try");
        try (FloeAllocator a = FloeAllocator.builder().mode(RegionMode.ARENA_CHUNKS).regionSize(1L << 43).jmx(false).build()) {
            NativeMemoryException e = assertThrows(NativeMemoryException.class, () -> a.allocate(1L << 41));
            assertEquals(12, e.errno(), "ENOMEM");
            assertEquals(0, a.stats().committedBytes(), "the failed request is refunded");
            long small = a.allocate(100);
            long large = a.allocate(1 << 20);
            a.free(small);
            a.free(large);
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    /**
     * Arena chunks are allocated zeroed, so all of a chunk is resident once any of it is used: a
     * small region (a map's own allocator) gets superblock-sized chunks, and one small block costs
     * a superblock or two of memory, not the 4 MiB of the default region's chunks.
     */
    @Test
    void aSmallArenaChunkedRegionCommitsSuperblocksNotFourMiBChunks() {
        assertEquals(SB, ChunkedRegion.chunkSizeFor(64 * MIB, SB));
        assertEquals(SB, ChunkedRegion.chunkSizeFor(2L << 30, SB));
        assertEquals(512 << 10, ChunkedRegion.chunkSizeFor(4L << 30, SB));
        assertEquals(4 * MIB, ChunkedRegion.chunkSizeFor(FloeAllocator.DEFAULT_REGION_SIZE, SB));
        assertEquals(SB, ChunkedRegion.chunkSizeFor((4L << 30) + SB, SB), "512 KiB does not divide the region");
        try (FloeAllocator a = FloeAllocator.builder().mode(RegionMode.ARENA_CHUNKS).regionSize(64 * MIB)
                .superblockSize(SB).budget(MIB).jmx(false).build()) {
            long block = a.allocate(40);
            long resident = a.stats().residentBytes();
            assertTrue(resident <= 2 * SB, "one 40-byte block made " + resident + " bytes resident");
            a.free(block);
        }
    }
}
