package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static dev.floe.memory.TestSupport.assertQuiescentStatsConsistent;
import static dev.floe.memory.TestSupport.pageRound;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The public façade: allocate / free / usableSize / segment, stats, trim, MXBean and JFR events. */
class FloeAllocatorTest {

    /** A random request size: log-uniform over the small classes, a few percent large. */
    static long randomSize(Random rnd) {
        int r = rnd.nextInt(100);
        if (r < 4) return SizeClasses.MAX_SMALL + 1 + rnd.nextInt(200_000);
        return 1 + rnd.nextInt(1 << rnd.nextInt(15)); // 1 .. 16384
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void blocksAreAlignedNonZeroNonOverlappingAndSizedToTheirClass(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Random rnd = new Random(42);
            int n = 4000;
            long[] offs = new long[n];
            long[] usable = new long[n];
            for (int i = 0; i < n; i++) {
                long size = randomSize(rnd);
                long off = a.allocate(size);
                offs[i] = off;
                usable[i] = a.usableSize(off);
                assertTrue(off > 0, "offset 0 is never handed out");
                assertEquals(0, off % 8, () -> "offset " + off + " is not 8-byte aligned");
                long expected = size <= SizeClasses.MAX_SMALL
                        ? SizeClasses.blockSize(SizeClasses.classOf(size)) : pageRound(size);
                assertEquals(expected, usable[i], "usable size of a " + size + "-byte request");
                if (size > SizeClasses.MAX_SMALL) {
                    assertEquals(0, off % TestSupport.PAGE, "large runs are page aligned");
                    assertTrue(off >= TestSupport.smallLimit(a), "large runs live in the large area");
                } else {
                    assertTrue(off < TestSupport.smallLimit(a), "small blocks live in the small area");
                }
                // first and last word carry the block's index (one word for 8-byte blocks)
                a.region().setLongPlain(off + usable[i] - 8, -(i + 1));
                a.region().setLongPlain(off, i + 1);
            }
            assertNoOverlap(offs, usable);
            for (int i = 0; i < n; i++) {
                assertEquals(i + 1, a.region().getLongPlain(offs[i]), "first word of block " + i);
                if (usable[i] > 8) {
                    assertEquals(-(i + 1), a.region().getLongPlain(offs[i] + usable[i] - 8), "last word of block " + i);
                }
            }
            assertQuiescentStatsConsistent(a);
            long expectedLive = Arrays.stream(usable).sum();
            assertEquals(expectedLive, a.stats().liveBytes(), "live bytes are the sum of usable sizes");
            for (long off : offs) a.free(off);
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    static void assertNoOverlap(long[] offs, long[] usable) {
        Integer[] order = new Integer[offs.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (x, y) -> Long.compare(offs[x], offs[y]));
        for (int k = 1; k < order.length; k++) {
            int p = order[k - 1];
            int q = order[k];
            assertTrue(offs[p] + usable[p] <= offs[q], "live blocks overlap: " + offs[p] + "+" + usable[p]
                    + " and " + offs[q] + "+" + usable[q]);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void segmentIsBoundedToTheUsableSize(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            for (long size : new long[] {1, 100, 4096, SizeClasses.MAX_SMALL, SizeClasses.MAX_SMALL + 1, 300_000}) {
                long off = a.allocate(size);
                long usable = a.usableSize(off);
                MemorySegment view = a.segment(off);
                assertEquals(usable, view.byteSize(), "segment(off) covers exactly the usable size");
                view.set(ValueLayout.JAVA_LONG, usable - 8, 0x2222L);
                assertEquals(0x2222L, a.region().getLongPlain(off + usable - 8), "view and region share memory");
                view.set(ValueLayout.JAVA_LONG, 0, 0x1111L);
                assertEquals(0x1111L, a.region().getLongPlain(off));
                assertThrows(IndexOutOfBoundsException.class, () -> view.get(ValueLayout.JAVA_BYTE, usable));
                assertThrows(IndexOutOfBoundsException.class, () -> view.get(ValueLayout.JAVA_LONG, usable - 4));
                assertThrows(IndexOutOfBoundsException.class, () -> view.asSlice(0, usable + 1));
                assertThrows(IndexOutOfBoundsException.class, () -> view.get(ValueLayout.JAVA_BYTE, -1));

                MemorySegment head = a.segment(off, 1);
                assertEquals(1, head.byteSize());
                assertThrows(IndexOutOfBoundsException.class, () -> head.get(ValueLayout.JAVA_BYTE, 1));
                assertEquals(usable, a.segment(off, usable).byteSize());
                assertEquals(0, a.segment(off, 0).byteSize());
                assertThrows(IndexOutOfBoundsException.class, () -> a.segment(off, usable + 1));
                assertThrows(IndexOutOfBoundsException.class, () -> a.segment(off, Long.MAX_VALUE));
                assertThrows(IndexOutOfBoundsException.class, () -> a.segment(off, -1));

                a.free(off);
                assertThrows(IllegalArgumentException.class, () -> a.usableSize(off), "usableSize of a freed block");
                assertThrows(IllegalArgumentException.class, () -> a.segment(off), "segment of a freed block");
                assertThrows(IllegalArgumentException.class, () -> a.segment(off, 1), "segment of a freed block");
            }
            assertThrows(IllegalArgumentException.class, () -> a.usableSize(0));
            assertThrows(IllegalArgumentException.class, () -> a.segment(-8));
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void largestSmallRequestIsABlockAndOneByteMoreIsAPageRun(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            long small = a.allocate(SizeClasses.MAX_SMALL);
            long large = a.allocate(SizeClasses.MAX_SMALL + 1);
            assertEquals(SizeClasses.MAX_SMALL, a.usableSize(small));
            assertEquals(pageRound(SizeClasses.MAX_SMALL + 1), a.usableSize(large));
            MemoryStats s = a.stats();
            assertEquals(1, s.largeRuns());
            assertEquals(pageRound(SizeClasses.MAX_SMALL + 1), s.largeLiveBytes());
            a.free(small);
            a.free(large);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void largeAllocationsArePageRunsUpToMaxAllocation(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            assertEquals(TestSupport.REGION / 2, a.maxAllocation(), "large area is half the region");
            if (mode == RegionMode.MAPPED) {
                // the whole large area in one run (mapped mode commits nothing up front)
                long max = a.allocate(a.maxAllocation());
                assertEquals(a.maxAllocation(), a.usableSize(max));
                a.region().setLongPlain(max + a.maxAllocation() - 8, 7);
                a.free(max);
            }
            long[] sizes = {SizeClasses.MAX_SMALL + 1, 20_000, 65_536, 100_000, (1 << 20) + 1, 5 << 20};
            long[] offs = new long[sizes.length];
            long[] usable = new long[sizes.length];
            long total = 0;
            for (int i = 0; i < sizes.length; i++) {
                offs[i] = a.allocate(sizes[i]);
                usable[i] = a.usableSize(offs[i]);
                assertEquals(0, offs[i] % TestSupport.PAGE, "large run page aligned");
                assertEquals(pageRound(sizes[i]), usable[i], "large run is the page-rounded request");
                MemorySegment v = a.segment(offs[i]);
                v.set(ValueLayout.JAVA_LONG, 0, i);
                v.set(ValueLayout.JAVA_LONG, usable[i] - 8, i);
                total += usable[i];
            }
            assertNoOverlap(offs, usable);
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            assertEquals(sizes.length, s.largeRuns());
            assertEquals(total, s.largeLiveBytes());
            assertEquals(total, s.liveBytes());
            assertEquals(total, s.committedBytes(), "large runs are committed while live");
            for (long off : offs) a.free(off);
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            assertThrows(IllegalArgumentException.class, () -> a.allocate(a.maxAllocation() + 1));
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void statsFollowAllocationsFreesAndTrim(RegionMode mode) {
        long sb = 64 << 10;
        try (FloeAllocator a = TestSupport.builder(mode).superblockSize(sb).build()) {
            MemoryStats s0 = a.stats();
            assertEquals(mode, s0.mode());
            assertEquals(mode, a.mode());
            assertEquals(TestSupport.REGION, s0.regionBytes());
            assertEquals(Long.MAX_VALUE, s0.budgetBytes());
            assertEquals(0, s0.liveBytes());
            assertEquals(0, s0.committedBytes());
            assertEquals(0, s0.residentBytes(), "a fresh allocator has nothing resident");
            assertEquals(0, s0.cachedBytes());
            assertEquals(0, s0.superblocksFull() + s0.superblocksPartial() + s0.superblocksEmpty());
            assertEquals(0, s0.largeRuns());
            assertEquals(0, s0.superblockReleases());
            assertTrue(s0.classes().isEmpty());

            int c = SizeClasses.classOf(100); // 112-byte blocks
            int perSb = (int) (sb / 112);
            int n = 3 * perSb + 10;             // three full superblocks and a bit
            long[] offs = new long[n];
            for (int i = 0; i < n; i++) offs[i] = a.allocate(100);
            long large = a.allocate(100_000);

            MemoryStats s1 = a.stats();
            assertQuiescentStatsConsistent(s1, sb);
            assertEquals(n * 112L + 102_400, s1.liveBytes());
            assertEquals(1, s1.largeRuns());
            assertEquals(102_400, s1.largeLiveBytes());
            assertEquals(1, s1.classes().size(), () -> "only one class in use: " + s1);
            MemoryStats.ClassStats cs = s1.classes().getFirst();
            assertEquals(c, cs.sizeClass());
            assertEquals(112, cs.blockSize());
            assertEquals(n, cs.liveBlocks());
            assertEquals(4, cs.superblocks(), "blocks of 3 superblocks and a bit need 4 superblocks");
            assertEquals(4, s1.superblocksFull() + s1.superblocksPartial());
            assertEquals(4 * sb + 102_400, s1.committedBytes());
            assertTrue(s1.residentBytes() > 0 || mode == RegionMode.MAPPED,
                    "arena mode backs committed superblocks with chunks");
            assertTrue(s1.superblocksFull() >= 3, () -> "at least three superblocks are full: " + s1);

            for (long off : offs) a.free(off);
            a.free(large);
            MemoryStats s2 = a.stats();
            assertQuiescentStatsConsistent(s2, sb);
            assertEquals(0, s2.liveBytes());
            assertEquals(0, s2.largeRuns());
            assertEquals(0, s2.classes().stream().mapToLong(MemoryStats.ClassStats::liveBlocks).sum());

            a.trim();
            MemoryStats s3 = a.stats();
            assertEverythingReturned(a, sb);
            assertEquals(4, s3.superblocksEmpty(), () -> "all four superblocks released and kept for reuse: " + s3);
            assertEquals(4, s3.superblockReleases());
            assertTrue(s3.toString().contains("releases=4"), s3::toString);

            // the released superblocks are reused by their class before any new one is carved
            for (int i = 0; i < n; i++) offs[i] = a.allocate(100);
            MemoryStats s4 = a.stats();
            assertQuiescentStatsConsistent(s4, sb);
            assertEquals(4, s4.superblocksFull() + s4.superblocksPartial() + s4.superblocksEmpty(),
                    () -> "no new superblock carved: " + s4);
            for (long off : offs) a.free(off);
            a.trim();
            assertEverythingReturned(a, sb);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void trimEmptiesTheCachesAndReleasesEmptySuperblocks(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            long[] offs = new long[20];
            for (int i = 0; i < offs.length; i++) offs[i] = a.allocate(64);
            for (long off : offs) a.free(off);
            MemoryStats before = a.stats();
            assertTrue(before.cachedBytes() > 0, () -> "freed blocks wait in a cache: " + before);
            assertTrue(before.committedBytes() > 0, () -> "the superblock stays until trim: " + before);
            a.trim();
            MemoryStats after = a.stats();
            assertEquals(0, after.cachedBytes());
            assertEquals(0, after.committedBytes());
            assertEquals(before.superblockReleases() + 1, after.superblockReleases());
            a.trim(); // idempotent
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            TestSupport.assertStillWorks(a);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void repeatedAllocateFreeCyclesDoNotGrowCommittedMemory(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Random rnd = new Random(7);
            List<Long> live = new ArrayList<>();
            long peak = 0;
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 500; i++) live.add(a.allocate(1 + rnd.nextInt(2000)));
                for (long off : live) a.free(off);
                live.clear();
                long committed = a.stats().committedBytes();
                if (round == 2) peak = committed;
                if (round > 2) {
                    assertTrue(committed <= peak, "round " + round + ": committed " + committed
                            + " grew past " + peak + " although every block was freed");
                }
            }
            assertQuiescentStatsConsistent(a);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void mxBeanIsRegisteredReadableAndUnregisteredOnClose(RegionMode mode) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String name = "mx test, \"quoted\" *? =:" + mode;
        ObjectName on = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(name));
        FloeAllocator a = FloeAllocator.builder().regionSize(TestSupport.REGION).mode(mode).name(name).build();
        try (a) {
            assertEquals(name, a.name());
            assertTrue(server.isRegistered(on), "registered as " + on);
            assertEquals("true", server.getMBeanInfo(on).getDescriptor().getFieldValue("mxbean"));
            long off = a.allocate(1000);
            long large = a.allocate(50_000);
            MemoryStats s = a.stats();
            assertEquals(mode.name(), server.getAttribute(on, "Mode"));
            assertEquals(s.liveBytes(), server.getAttribute(on, "LiveBytes"));
            assertEquals(s.committedBytes(), server.getAttribute(on, "CommittedBytes"));
            assertEquals(TestSupport.REGION, server.getAttribute(on, "RegionBytes"));
            assertEquals(Long.MAX_VALUE, server.getAttribute(on, "BudgetBytes"));
            assertEquals(1L, server.getAttribute(on, "LargeRuns"));

            FloeAllocatorMXBean proxy = JMX.newMXBeanProxy(server, on, FloeAllocatorMXBean.class);
            assertEquals(mode.name(), proxy.getMode());
            assertEquals(s.liveBytes(), proxy.getLiveBytes());
            assertEquals(s.cachedBytes(), proxy.getCachedBytes());
            assertEquals(s.superblocksFull(), proxy.getSuperblocksFull());
            assertEquals(s.superblocksPartial(), proxy.getSuperblocksPartial());
            assertEquals(s.superblocksEmpty(), proxy.getSuperblocksEmpty());
            assertEquals(s.superblockReleases(), proxy.getSuperblockReleases());
            assertEquals(a.stats().residentBytes(), proxy.getResidentBytes(), "resident bytes: nothing touched the region since");
            a.free(off);
            a.free(large);
            a.trim();
            assertEquals(0L, proxy.getLiveBytes());
            assertEquals(0L, proxy.getCommittedBytes());
            assertEquals(1L, proxy.getSuperblockReleases());
        }
        assertFalse(server.isRegistered(on), "unregistered on close");
    }

    @Test
    void sameNameTwiceKeepsTheFirstMBeanAndJmxCanBeTurnedOff() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        String name = "mx-duplicate";
        ObjectName on = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(name));
        try (FloeAllocator first = FloeAllocator.builder().regionSize(TestSupport.REGION).name(name).build()) {
            long off = first.allocate(24);
            try (FloeAllocator second = FloeAllocator.builder().regionSize(TestSupport.REGION).name(name).build()) {
                second.allocate(8);
                assertEquals(24L, server.getAttribute(on, "LiveBytes"), "the MBean still reports the first");
            }
            assertTrue(server.isRegistered(on), "closing the second allocator leaves the first's MBean");
            assertEquals(24L, server.getAttribute(on, "LiveBytes"));
            first.free(off);
        }
        assertFalse(server.isRegistered(on));

        String quiet = "mx-off";
        ObjectName qn = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(quiet));
        try (FloeAllocator a = FloeAllocator.builder().regionSize(TestSupport.REGION).name(quiet).jmx(false).build()) {
            assertFalse(server.isRegistered(qn), "jmx(false) registers nothing");
            TestSupport.assertStillWorks(a);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void jfrRecordsSuperblockReleasesAndLargeAllocations(RegionMode mode, @TempDir Path dir) throws Exception {
        long sb = 64 << 10;
        Path file = dir.resolve("floe.jfr");
        long largeOff;
        long releases;
        long smallLimit;
        try (Recording rec = new Recording();
             FloeAllocator a = TestSupport.builder(mode).superblockSize(sb).build()) {
            rec.enable("floe.SuperblockRelease");
            rec.enable("floe.LargeAllocation");
            rec.start();
            smallLimit = TestSupport.smallLimit(a);
            long[] offs = new long[2 * (int) (sb / 64)];
            for (int i = 0; i < offs.length; i++) offs[i] = a.allocate(64);
            for (long off : offs) a.free(off);
            a.trim();
            releases = a.stats().superblockReleases();
            assertTrue(releases >= 2, "two superblocks released");
            largeOff = a.allocate(100_000);
            a.free(largeOff);
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> released = events.stream()
                .filter(e -> e.getEventType().getName().equals("floe.SuperblockRelease")).toList();
        List<RecordedEvent> large = events.stream()
                .filter(e -> e.getEventType().getName().equals("floe.LargeAllocation")).toList();
        assertEquals(releases, released.size(), "one event per superblock release");
        for (RecordedEvent e : released) {
            long off = e.getLong("offset");
            assertTrue(off > 0 && off < smallLimit && off % sb == 0, "superblock offset " + off);
            assertEquals(SizeClasses.classOf(64), e.getInt("sizeClass"));
            assertEquals(64, e.getInt("blockSize"));
            assertEquals(sb, e.getLong("bytes"));
            assertTrue(e.getStartTime() != null && e.getThread() != null);
        }
        assertEquals(released.size(), released.stream().mapToLong(e -> e.getLong("offset")).distinct().count(),
                "each superblock released once");
        assertEquals(2, large.size(), () -> "one allocation and one free event: " + large);
        RecordedEvent alloc = large.stream().filter(e -> !e.getBoolean("freed")).findFirst().orElseThrow();
        RecordedEvent freed = large.stream().filter(e -> e.getBoolean("freed")).findFirst().orElseThrow();
        assertEquals(largeOff, alloc.getLong("offset"));
        assertEquals(100_000, alloc.getLong("requested"));
        assertEquals(pageRound(100_000), alloc.getLong("bytes"));
        assertEquals(largeOff, freed.getLong("offset"));
        assertEquals(pageRound(100_000), freed.getLong("bytes"));
        assertFalse(freed.getStartTime().isBefore(alloc.getStartTime()), "free after allocation");
    }

    /** Geometries the builder accepts: the minimum (8 superblocks), regions not made of 4 MiB chunks, odd halves. */
    static Stream<Arguments> builderAcceptedGeometries() {
        List<Arguments> args = new ArrayList<>();
        for (RegionMode m : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            args.add(Arguments.of(m, 8L * (64 << 10), 64L << 10));
            args.add(Arguments.of(m, 12L << 20, 256L << 10));
            args.add(Arguments.of(m, 64L << 20, 8L << 20));
            args.add(Arguments.of(m, 9L * (64 << 10), 64L << 10));  // small area is not half the region
            args.add(Arguments.of(m, 72L << 20, 8L << 20));         // small limit 32 MiB, half is 36 MiB
        }
        return args.stream();
    }

    /**
     * Whatever region geometry the builder accepts works in both modes: the small area can be filled
     * completely (then it reports address-space exhaustion), and large runs still work next to it.
     */
    @ParameterizedTest(name = "{0}: region {1} B, superblocks {2} B")
    @MethodSource("builderAcceptedGeometries")
    void everyGeometryTheBuilderAcceptsWorksInBothModes(RegionMode mode, long regionSize, long sbSize) {
        try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(regionSize).superblockSize(sbSize)
                .name("geometry-" + mode + "-" + regionSize).build()) {
            long smallLimit = TestSupport.smallLimit(a);
            int superblocks = (int) (smallLimit / sbSize) - 1; // index 0 holds offset 0: never used
            int perSb = (int) (sbSize / SizeClasses.MAX_SMALL);
            List<Long> blocks = new ArrayList<>();
            for (int i = 0; i < superblocks * perSb; i++) {
                long off = a.allocate(SizeClasses.MAX_SMALL);
                a.region().setLongPlain(off, off);
                blocks.add(off);
            }
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(SizeClasses.MAX_SMALL),
                    "small area exhausted");
            long large = a.allocate(100_000);
            a.region().setLongPlain(large + pageRound(100_000) - 8, large);
            for (long off : blocks) assertEquals(off, a.region().getLongPlain(off), "block " + off + " intact");
            assertQuiescentStatsConsistent(a, sbSize);
            for (long off : blocks) a.free(off);
            a.free(large);
            a.trim();
            assertEverythingReturned(a, sbSize);
            // the released superblocks serve their class again (they keep it: invariant 3)
            long again = a.allocate(SizeClasses.MAX_SMALL);
            long largeAgain = a.allocate(100_000);
            a.free(again);
            a.free(largeAgain);
        }
    }

    /**
     * After a large run is freed, the free run ending at the frontier plus the untouched rest of
     * the large area form one free range; a request that fits it must not fail as "address space
     * exhausted" (mapped mode, where all of the area is contiguous).
     */
    @Test
    void freedLargeRunAtTheFrontierCombinesWithTheUntouchedRestOfTheArea() {
        try (FloeAllocator a = TestSupport.open(RegionMode.MAPPED)) {
            long first = a.allocate(1 << 20);
            a.free(first);
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            long whole = a.allocate(a.maxAllocation()); // the large area is entirely free
            assertEquals(a.maxAllocation(), a.usableSize(whole));
            a.free(whole);
        }
    }

    /**
     * With 8 MiB superblocks, 10 KiB blocks straddle the region's 4 MiB chunk boundaries in arena
     * mode, and large runs span several chunks: every such block is still one usable segment.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void blocksAndRunsSpanningChunkBoundariesAreUsableWhole(RegionMode mode) {
        long sb = 8L << 20;
        long chunk = 4L << 20;
        try (FloeAllocator a = TestSupport.builder(mode).superblockSize(sb).build()) {
            List<Long> blocks = new ArrayList<>();
            long straddling = -1;
            for (int i = 0; i < 2000 && straddling < 0; i++) {
                long off = a.allocate(10_000);
                blocks.add(off);
                if (off / chunk != (off + a.usableSize(off) - 1) / chunk) straddling = off;
            }
            assertTrue(straddling > 0, "some 10 KiB block straddles a 4 MiB boundary");
            long large = a.allocate(9L << 20);
            for (long off : new long[] {straddling, large}) {
                long usable = a.usableSize(off);
                MemorySegment v = a.segment(off);
                v.fill((byte) 0x5A);
                for (long w = 0; w < usable; w += 8) {
                    if (a.region().getLongPlain(off + w) != 0x5A5A_5A5A_5A5A_5A5AL) {
                        fail("word +" + w + " of the " + usable + "-byte block at " + off + " not seen through the region");
                    }
                }
                long boundary = (off / chunk + 1) * chunk;
                a.region().setLongPlain(boundary - 8, 1);
                a.region().setLongPlain(boundary, 2);
                assertEquals(1, v.get(ValueLayout.JAVA_LONG, boundary - 8 - off));
                assertEquals(2, v.get(ValueLayout.JAVA_LONG, boundary - off));
                assertEquals(usable, a.region().slice(off, usable).byteSize());
            }
            a.free(large);
            for (long off : blocks) a.free(off);
            a.trim();
            assertEverythingReturned(a, sb);
        }
    }

    @Test
    void builderRejectsBadGeometry() {
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().superblockSize(32 << 10).build());
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().superblockSize(100_000).build());
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().superblockSize(16L << 20).build());
        assertThrows(IllegalArgumentException.class,
                () -> FloeAllocator.builder().regionSize(7L * (256 << 10)).build());
        assertThrows(IllegalArgumentException.class,
                () -> FloeAllocator.builder().regionSize((1L << 30) + 4096).build());
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().budget(0));
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().cacheStripes(3));
        assertThrows(NullPointerException.class, () -> FloeAllocator.builder().mode(null));
        assertThrows(NullPointerException.class, () -> FloeAllocator.builder().name(null));
    }

    @Test
    void defaultNamesAreUnique() {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(TestSupport.REGION).build();
             FloeAllocator b = FloeAllocator.builder().regionSize(TestSupport.REGION).build()) {
            assertNotEquals(a.name(), b.name());
            assertTrue(a.name().startsWith("floe-"), a.name());
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void cacheStripeCountDoesNotChangeResults(RegionMode mode) {
        for (int stripes : new int[] {1, 2, 64}) {
            try (FloeAllocator a = TestSupport.builder(mode).cacheStripes(stripes).build()) {
                Random rnd = new Random(stripes);
                long[] offs = new long[1000];
                long[] usable = new long[offs.length];
                for (int i = 0; i < offs.length; i++) {
                    offs[i] = a.allocate(randomSize(rnd));
                    usable[i] = a.usableSize(offs[i]);
                }
                assertNoOverlap(offs, usable);
                assertQuiescentStatsConsistent(a);
                long[] sorted = offs.clone();
                Arrays.sort(sorted);
                long[] distinct = Arrays.stream(sorted).distinct().toArray();
                assertArrayEquals(sorted, distinct, "no offset handed out twice");
                for (long off : offs) a.free(off);
                a.trim();
                assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            }
        }
    }

    @Test
    void regionWordAccessorsHaveTheirDocumentedSemantics() {
        for (RegionMode mode : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            try (FloeAllocator a = TestSupport.open(mode)) {
                Region r = a.region();
                long off = a.allocate(64);
                r.setLongPlain(off, 1);
                assertEquals(1, r.getLongPlain(off));
                r.setLongRelease(off + 8, 2);
                assertEquals(2, r.getLongAcquire(off + 8));
                r.setLongVolatile(off + 16, 3);
                assertEquals(3, r.getLongVolatile(off + 16));
                assertTrue(r.compareAndSetLong(off, 1, 10));
                assertFalse(r.compareAndSetLong(off, 1, 11));
                assertEquals(10, r.getAndAddLong(off, 5));
                assertEquals(15, r.getLongPlain(off));
                assertThrows(IllegalArgumentException.class, () -> r.getLongPlain(off + 4), "misaligned word");
                assertThrows(IndexOutOfBoundsException.class, () -> r.getLongPlain(-8));
                assertThrows(IndexOutOfBoundsException.class, () -> r.getLongPlain(r.size()));
                assertThrows(IndexOutOfBoundsException.class, () -> r.getLongPlain(Long.MAX_VALUE & -8));
                assertThrows(IndexOutOfBoundsException.class, () -> r.slice(r.size() - 8, 16));
                assertThrows(IndexOutOfBoundsException.class, () -> r.slice(0, -1));
                assertTrue(r.isOpen());
                a.free(off);
            }
        }
    }
}
