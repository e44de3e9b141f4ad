package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static dev.floe.memory.TestSupport.assertQuiescentStatsConsistent;
import static dev.floe.memory.TestSupport.assertStillWorks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.LongConsumer;

import javax.management.InstanceNotFoundException;
import javax.management.ObjectName;

import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Misuse is refused with a clear exception and changes nothing (ARCHITECTURE.md invariant 6):
 * bad sizes, bad frees, budget exhaustion, use after close.
 */
class MisuseTest {

    /** A few live blocks with a pattern, to check that refused calls corrupt nothing. */
    private static final class Witnesses {
        final FloeAllocator a;
        final Map<Long, Long> blocks = new HashMap<>();

        Witnesses(FloeAllocator a) {
            this.a = a;
            for (long size : new long[] {8, 24, 100, 1000, 4096, SizeClasses.MAX_SMALL, 20_000, 300_000}) {
                for (int k = 0; k < 3; k++) {
                    long off = a.allocate(size);
                    long pattern = off * 31 + 17;
                    long usable = a.usableSize(off);
                    for (long w = 0; w < Math.min(usable, 1024); w += 8) a.region().setLongPlain(off + w, pattern + w);
                    blocks.put(off, pattern);
                }
            }
        }

        void check() {
            for (Map.Entry<Long, Long> e : blocks.entrySet()) {
                long off = e.getKey();
                long usable = a.usableSize(off); // still allocated
                for (long w = 0; w < Math.min(usable, 1024); w += 8) {
                    assertEquals(e.getValue() + w, a.region().getLongPlain(off + w),
                            "witness block " + off + " word +" + w + " changed");
                }
            }
        }

        /** The allocator is unchanged: witnesses intact, stats as before, and it still works. */
        void assertUnchanged(MemoryStats before) {
            check();
            MemoryStats after = a.stats();
            assertQuiescentStatsConsistent(after, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            assertEquals(before.liveBytes(), after.liveBytes(), "live bytes changed by a refused call");
            assertEquals(before.committedBytes(), after.committedBytes(), "committed bytes changed by a refused call");
            assertEquals(before.largeRuns(), after.largeRuns(), "large runs changed by a refused call");
            assertStillWorks(a);
        }

        void freeAll() {
            for (long off : blocks.keySet()) a.free(off);
            blocks.clear();
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void invalidSizesAreRejectedWithIllegalArgumentException(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            MemoryStats before = a.stats();
            for (long size : new long[] {0, -1, -8, Integer.MIN_VALUE, Long.MIN_VALUE,
                    a.maxAllocation() + 1, TestSupport.REGION, Long.MAX_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.allocate(size),
                        "allocate(" + size + ")");
                assertFalse(e instanceof IllegalFreeException);
                assertTrue(e.getMessage().contains(Long.toString(size)), e.getMessage());
            }
            w.assertUnchanged(before);
            w.freeAll();
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    private static void assertIllegalFree(FloeAllocator a, long off, String what) {
        IllegalFreeException e = assertThrows(IllegalFreeException.class, () -> a.free(off),
                () -> what + ": free(" + off + ")");
        assertNotNull(e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void doubleFreesAreRefusedAndChangeNothing(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            for (long size : new long[] {8, 100, SizeClasses.MAX_SMALL, SizeClasses.MAX_SMALL + 1, 1 << 20}) {
                long off = a.allocate(size);
                a.free(off);
                MemoryStats before = a.stats();
                assertIllegalFree(a, off, "double free of a " + size + "-byte block");
                assertIllegalFree(a, off, "third free of a " + size + "-byte block");
                w.assertUnchanged(before);
            }
            // the double free did not put the block in the free pool twice: it is handed out once
            long off = a.allocate(64);
            a.free(off);
            assertIllegalFree(a, off, "double free");
            List<Long> again = new ArrayList<>();
            for (int i = 0; i < 2000; i++) again.add(a.allocate(64));
            assertEquals(again.size(), again.stream().distinct().count(), "a block was handed out twice");
            for (long o : again) a.free(o);
            w.freeAll();
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freeOfAnOffsetInsideABlockIsRefused(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            MemoryStats before = a.stats();
            for (long off : w.blocks.keySet()) {
                long usable = a.usableSize(off);
                for (long d : new long[] {1, 4, 7, 8, usable / 2, usable - 8, usable - 1}) {
                    if (d <= 0 || d >= usable) continue;
                    assertIllegalFree(a, off + d, "offset +" + d + " inside a " + usable + "-byte block");
                }
                if (usable > SizeClasses.MAX_SMALL) {
                    assertIllegalFree(a, off + TestSupport.PAGE, "a page inside a large run");
                }
            }
            w.assertUnchanged(before);
            assertThrows(IllegalArgumentException.class, () -> a.usableSize(w.blocks.keySet().iterator().next() + 8));
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freeOfZeroNegativeAndOutOfRegionOffsetsIsRefused(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            MemoryStats before = a.stats();
            long size = a.region().size();
            long smallLimit = TestSupport.smallLimit(a);
            for (long off : new long[] {0, 8, -1, -8, Integer.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 8,
                    size, size - 8, size + TestSupport.PAGE, Long.MAX_VALUE, Long.MAX_VALUE & -8,
                    smallLimit - 8, smallLimit + (256L << 20)}) {
                assertIllegalFree(a, off, "never allocated");
                assertThrows(IllegalArgumentException.class, () -> a.usableSize(off), "usableSize(" + off + ")");
                assertThrows(IllegalArgumentException.class, () -> a.segment(off), "segment(" + off + ")");
            }
            w.assertUnchanged(before);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freeOfBlocksThatWereNeverHandedOutIsRefused(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            long off = a.allocate(64);
            MemoryStats before = a.stats();
            // the neighbours of a fresh block sit in a cache or in the superblock's free pool
            for (int k = 1; k <= 8; k++) {
                assertIllegalFree(a, off + 64L * k, "cached/free neighbour +" + k);
                assertIllegalFree(a, off - 64L * k, "cached/free neighbour -" + k);
            }
            // a block start in a superblock that was never carved
            long sb = FloeAllocator.DEFAULT_SUPERBLOCK_SIZE;
            assertIllegalFree(a, 100 * sb, "uncarved superblock");
            assertIllegalFree(a, 100 * sb + 64, "uncarved superblock");
            // a page in the large area past every run
            long large = a.allocate(50_000);
            assertIllegalFree(a, large + a.usableSize(large), "just past the last large run");
            assertIllegalFree(a, large + (64L << 20), "large area, never allocated");
            a.free(large);
            assertIllegalFree(a, large, "freed large run, twice");
            w.assertUnchanged(before);
            a.free(off);
        }
    }

    /** Thousands of random longs as offsets: each is refused (or is a live block), nothing changes. */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freeOfRandomLongsIsRefusedAndCorruptsNothing(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            Witnesses w = new Witnesses(a);
            Random rnd = new Random(0xF10E);
            List<Long> more = new ArrayList<>();
            for (int i = 0; i < 500; i++) more.add(a.allocate(FloeAllocatorTest.randomSize(rnd)));
            Set<Long> live = new HashSet<>(more);
            live.addAll(w.blocks.keySet());
            MemoryStats before = a.stats();
            long size = a.region().size();
            long smallLimit = TestSupport.smallLimit(a);
            long maxCarved = 0;
            for (long off : more) if (off < smallLimit) maxCarved = Math.max(maxCarved, off);
            int refused = 0;
            for (int i = 0; i < 20_000; i++) {
                long off = switch (i % 5) {
                    case 0 -> rnd.nextLong();                                  // anything
                    case 1 -> rnd.nextLong(size);                              // inside the region
                    case 2 -> rnd.nextLong(maxCarved + 4096) & -8;             // aligned, in carved superblocks
                    case 3 -> smallLimit + (rnd.nextLong(64L << 20) & -TestSupport.PAGE); // page in the large area
                    default -> more.get(rnd.nextInt(more.size())) + 8L * (1 + rnd.nextInt(8)); // near a live block
                };
                if (live.contains(off)) continue;
                assertIllegalFree(a, off, "random offset #" + i);
                try {
                    a.usableSize(off);
                    fail("usableSize(" + off + ") of a random offset did not throw");
                } catch (IllegalArgumentException expected) {
                    // refused
                }
                refused++;
            }
            assertTrue(refused > 15_000, "most random offsets were tried: " + refused);
            w.assertUnchanged(before);
            for (long off : more) a.free(off);
            w.freeAll();
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void exceedingTheBudgetThrowsAndFreeingMakesRoomAgain(RegionMode mode) {
        long budget = 4 << 20;
        try (FloeAllocator a = TestSupport.builder(mode).budget(budget).build()) {
            assertEquals(budget, a.stats().budgetBytes());
            List<Long> blocks = new ArrayList<>();
            FloeOutOfMemoryException oom = null;
            for (int i = 0; i < 100_000 && oom == null; i++) {
                try {
                    blocks.add(a.allocate(1000));
                } catch (FloeOutOfMemoryException e) {
                    oom = e;
                }
            }
            assertNotNull(oom, "4 MiB of 1000-byte blocks exceed a 4 MiB budget");
            String msg = oom.getMessage();
            assertTrue(msg.contains("live") && msg.contains("committed") && msg.contains("requested"),
                    "message names live, committed and requested bytes: " + msg);
            assertTrue(msg.contains(Long.toString(budget)), "message names the budget: " + msg);
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            assertEquals(s.liveBytes(), oom.liveBytes(), "exception's live bytes");
            assertEquals(s.committedBytes(), oom.committedBytes(), "exception's committed bytes");
            assertEquals(1024, oom.requestedBytes(), "exception's requested bytes (the block size)");
            assertTrue(s.committedBytes() <= budget && s.committedBytes() > budget - FloeAllocator.DEFAULT_SUPERBLOCK_SIZE,
                    () -> "committed fills the budget: " + s);
            assertEquals(blocks.size() * 1024L, s.liveBytes());

            // failed calls change nothing, and keep failing the same way
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(1000));
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(8), "another class needs a superblock");
            FloeOutOfMemoryException big = assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(100_000));
            assertEquals(100_000, big.requestedBytes());
            MemoryStats s2 = a.stats();
            assertEquals(s.liveBytes(), s2.liveBytes());
            assertEquals(s.committedBytes(), s2.committedBytes());
            assertEquals(0, s2.largeRuns());

            // free a few: the same size fits again at once
            for (int i = 0; i < 10; i++) a.free(blocks.removeLast());
            for (int i = 0; i < 10; i++) blocks.add(a.allocate(1000));

            // free everything: after trim the whole budget is available, also to large runs
            for (long off : blocks) a.free(off);
            blocks.clear();
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            long whole = a.allocate(budget);
            assertEquals(budget, a.stats().committedBytes());
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(8));
            a.free(whole);
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(budget + 1), "beyond the budget");
            assertStillWorks(a);
            a.trim();
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    /**
     * A released superblock that a fill takes for reuse while the budget is full goes back on its
     * class's reuse stack: once the budget has room, the class reuses that address range instead
     * of carving a new one (before this test, dropping it there failed no test).
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void aReleasedSuperblockRefusedForTheBudgetIsReusedOnceThereIsRoom(RegionMode mode) {
        long sb = 64 << 10;
        try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(16 * sb).superblockSize(sb)
                .budget(2 * sb).jmx(false).build()) {
            long first = a.allocate(SizeClasses.MAX_SMALL);
            assertEquals(sb, first & -sb, "the first superblock carved is index 1");
            a.free(first);
            a.trim(); // released: EMPTY on the 16 KiB class's reuse stack
            List<Long> others = new ArrayList<>();
            assertThrows(FloeOutOfMemoryException.class, () -> {
                while (true) others.add(a.allocate(8 << 10));
            });
            assertEquals(2 * 8, others.size(), "two superblocks of 8 KiB blocks fill the budget");
            assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(SizeClasses.MAX_SMALL),
                    "the released superblock cannot be committed again while the budget is full");
            for (long off : others) a.free(off);
            a.trim();
            long again = a.allocate(SizeClasses.MAX_SMALL);
            assertEquals(sb, again & -sb, "the class reuses its released superblock");
            a.free(again);
            a.trim();
            assertEverythingReturned(a, sb);
            assertEquals(3, a.stats().superblocksEmpty(), "three superblocks carved in all");
        }
    }

    /** When the small area runs out of superblocks, the exception reports the allocator's real state. */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void smallAreaExhaustionReportsTheRealLiveAndCommittedBytes(RegionMode mode) {
        long sb = 64 << 10;
        try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(16 * sb).superblockSize(sb)
                .name("exhaust-small-" + mode).build()) {
            List<Long> blocks = new ArrayList<>();
            FloeOutOfMemoryException oom = null;
            while (oom == null) {
                try {
                    blocks.add(a.allocate(SizeClasses.MAX_SMALL));
                } catch (FloeOutOfMemoryException e) {
                    oom = e;
                }
            }
            assertEquals(7 * 4, blocks.size(), "7 usable superblocks of 4 blocks each");
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, sb);
            assertEquals(SizeClasses.MAX_SMALL, oom.requestedBytes());
            FloeOutOfMemoryException e = oom;
            assertEquals(s.committedBytes(), e.committedBytes(), () -> "committed bytes in: " + e.getMessage());
            assertEquals(s.liveBytes(), e.liveBytes(), () -> "live bytes in: " + e.getMessage());
            for (long off : blocks) a.free(off);
            a.trim();
            assertEverythingReturned(a, sb);
        }
    }

    /**
     * A superblock serves the size class it was carved for until the region closes (invariant 3),
     * so once every superblock of the small area has been carved, a class that has none refuses
     * even with nothing live or committed. The exception must say why: before, it read "address
     * space for superblocks exhausted ... live 0, committed 0", which no budget or free explains.
     * Re-carving lets the class have the released superblocks.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void smallAreaHeldByReleasedSuperblocksOfOtherClassesIsNamedInTheException(RegionMode mode) {
        long sb = 64 << 10;
        for (boolean recarve : new boolean[] {false, true}) {
            try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(16 * sb).superblockSize(sb)
                    .recarveEmptySuperblocks(recarve).jmx(false).build()) {
                List<Long> blocks = new ArrayList<>();
                assertThrows(FloeOutOfMemoryException.class, () -> {
                    while (true) blocks.add(a.allocate(SizeClasses.MAX_SMALL));
                });
                assertEquals(7 * 4, blocks.size(), "7 usable superblocks of 4 blocks each");
                for (long off : blocks) a.free(off);
                a.trim();
                assertEverythingReturned(a, sb);
                assertEquals(7, a.stats().superblocksEmpty(), "all 7 released, kept for their class");
                if (recarve) {
                    a.free(a.allocate(8)); // takes a released superblock of the 16 KiB class
                    continue;
                }
                FloeOutOfMemoryException e = assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(8),
                        "a class with no superblock of its own, in a small area whose superblocks are all carved");
                assertEquals(0, e.liveBytes());
                assertEquals(0, e.committedBytes());
                String msg = e.getMessage();
                assertTrue(msg.contains("7 of its 7 superblocks are released") && msg.contains("regionSize")
                        && msg.contains("recarveEmptySuperblocks"), msg);
                // the class the superblocks were carved for has all of them again
                blocks.clear();
                for (int i = 0; i < 7 * 4; i++) blocks.add(a.allocate(SizeClasses.MAX_SMALL));
                for (long off : blocks) a.free(off);
                a.trim();
                assertEverythingReturned(a, sb);
            }
        }
    }

    /** When the large area runs out of address space, the exception reports the allocator's real state. */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void largeAreaExhaustionReportsTheRealLiveAndCommittedBytes(RegionMode mode) {
        long sb = 64 << 10;
        try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(16 * sb).superblockSize(sb)
                .name("exhaust-large-" + mode).build()) {
            long small = a.allocate(100);
            long large1 = a.allocate(a.maxAllocation() / 2);
            FloeOutOfMemoryException e = assertThrows(FloeOutOfMemoryException.class,
                    () -> a.allocate(a.maxAllocation()));
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, sb);
            assertEquals(a.maxAllocation(), e.requestedBytes());
            assertEquals(s.committedBytes(), e.committedBytes(), () -> "committed bytes in: " + e.getMessage());
            assertEquals(s.liveBytes(), e.liveBytes(), () -> "live bytes in: " + e.getMessage());
            a.free(large1);
            a.free(small);
            a.trim();
            assertEverythingReturned(a, sb);
        }
    }

    /**
     * Freed large runs of separately committed extents never merge in the arena-chunks mode (their
     * memory is not contiguous), so there the large area can refuse a run with nothing live, where
     * the mapped mode coalesces and serves it. The exception must say why: before, it read "address
     * space for large runs exhausted ... live 0, committed 0" and nothing more.
     */
    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void largeAreaInPiecesIsNamedInTheException(RegionMode mode) {
        long mib = 1 << 20;
        try (FloeAllocator a = FloeAllocator.builder().mode(mode).regionSize(64 * mib).jmx(false).build()) {
            a.free(a.allocate(12 * mib));
            a.free(a.allocate(16 * mib)); // does not fit the 12 MiB run: a second extent
            if (mode == RegionMode.MAPPED) {
                a.free(a.allocate(24 * mib)); // the two runs coalesced with the rest of the area
                return;
            }
            FloeOutOfMemoryException e = assertThrows(FloeOutOfMemoryException.class, () -> a.allocate(24 * mib),
                    "28 MiB free in two extents that are not contiguous, 4 MiB untouched");
            assertEquals(0, e.liveBytes());
            assertEquals(0, e.committedBytes());
            String msg = e.getMessage();
            assertTrue(msg.contains(28 * mib + " bytes of it are free") && msg.contains("largest " + 16 * mib)
                    && msg.contains("ARENA_CHUNKS") && msg.contains("regionSize"), msg);
            a.free(a.allocate(16 * mib)); // what fits a piece is still served
            assertStillWorks(a);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void everyOperationAfterCloseThrowsIllegalStateException(RegionMode mode) throws Exception {
        FloeAllocator a = TestSupport.open(mode);
        String name = a.name();
        ObjectName on = new ObjectName("dev.floe:type=FloeAllocator,name=" + ObjectName.quote(name));
        long small = a.allocate(100);
        long large = a.allocate(100_000);
        long freed = a.allocate(100);
        a.free(freed);
        MemorySegment smallView = a.segment(small);
        MemorySegment largeView = a.segment(large);
        smallView.set(ValueLayout.JAVA_LONG, 0, 1);
        largeView.set(ValueLayout.JAVA_LONG, 0, 2);
        Region region = a.region();
        MemorySegment rawSlice = region.slice(small, 16);
        assertFalse(a.isClosed());

        a.close();

        assertTrue(a.isClosed());
        assertFalse(region.isOpen());
        assertThrows(IllegalStateException.class, a::close, "second close");
        assertThrows(IllegalStateException.class, () -> a.allocate(100));
        assertThrows(IllegalStateException.class, () -> a.allocate(0), "closed is reported before bad sizes");
        assertThrows(IllegalStateException.class, () -> a.allocate(100_000));
        assertThrows(IllegalStateException.class, () -> a.free(small));
        assertThrows(IllegalStateException.class, () -> a.free(large));
        assertThrows(IllegalStateException.class, () -> a.free(freed));
        assertThrows(IllegalStateException.class, () -> a.free(12345));
        assertThrows(IllegalStateException.class, () -> a.usableSize(small));
        assertThrows(IllegalStateException.class, () -> a.segment(small));
        assertThrows(IllegalStateException.class, () -> a.segment(small, 8));
        assertThrows(IllegalStateException.class, a::stats);
        assertThrows(IllegalStateException.class, a::trim);
        assertThrows(InstanceNotFoundException.class,
                () -> ManagementFactory.getPlatformMBeanServer().getAttribute(on, "LiveBytes"));

        // views handed out before close fail cleanly (no crash: the memory is gone)
        List<Executable> uses = List.of(
                () -> smallView.get(ValueLayout.JAVA_LONG, 0),
                () -> smallView.set(ValueLayout.JAVA_LONG, 0, 3),
                () -> largeView.get(ValueLayout.JAVA_LONG, 0),
                () -> largeView.set(ValueLayout.JAVA_BYTE, 99_999, (byte) 1),
                () -> rawSlice.get(ValueLayout.JAVA_LONG, 8),
                () -> smallView.fill((byte) 0),
                () -> smallView.toArray(ValueLayout.JAVA_BYTE));
        for (Executable use : uses) assertThrows(IllegalStateException.class, use, "view used after close");

        // region accessors, at committed and at never-committed offsets
        for (long off : new long[] {small, large, freed, 100L << 20}) {
            List<Executable> accessors = List.of(
                    () -> region.getLongPlain(off),
                    () -> region.getLongAcquire(off),
                    () -> region.getLongVolatile(off),
                    () -> region.setLongPlain(off, 1),
                    () -> region.setLongRelease(off, 1),
                    () -> region.setLongVolatile(off, 1),
                    () -> region.compareAndSetLong(off, 0, 1),
                    () -> region.getAndAddLong(off, 1),
                    () -> region.slice(off, 8).get(ValueLayout.JAVA_LONG, 0),
                    () -> region.release(off & -TestSupport.PAGE, TestSupport.PAGE));
            for (Executable acc : accessors) {
                assertThrows(IllegalStateException.class, acc, "region accessor after close at " + off);
            }
        }
        assertThrows(IllegalStateException.class, () -> region.residentBytes(0, TestSupport.PAGE));
        assertThrows(IllegalStateException.class, region::close, "second region close");
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void closeWithLiveBlocksIsAllowedAndMisuseBeforeCloseDoesNotBlockIt(RegionMode mode) {
        FloeAllocator a = TestSupport.open(mode);
        LongConsumer tryFree = off -> {
            try {
                a.free(off);
            } catch (IllegalFreeException expected) {
                // refused
            }
        };
        for (int i = 0; i < 100; i++) a.allocate(1 + i * 37L);
        tryFree.accept(3);
        tryFree.accept(-3);
        a.close(); // live blocks are simply dropped with the region
        assertTrue(a.isClosed());
    }
}
