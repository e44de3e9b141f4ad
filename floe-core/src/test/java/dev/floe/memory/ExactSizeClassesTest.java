package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Size classes of exact block sizes added by {@link FloeAllocator.Builder#exactSizeClasses}. */
class ExactSizeClassesTest {

    private static FloeAllocator allocator(int... exact) {
        return FloeAllocator.builder().regionSize(1L << 30).jmx(false).exactSizeClasses(exact).build();
    }

    /** Every request gets the smallest block, standard or exact, that holds it; the table agrees with the allocator. */
    @Property(tries = 20)
    void everyRequestGetsTheSmallestBlockThatHoldsIt(@ForAll @Size(max = 16) List<@IntRange(min = 1, max = 2048) Integer> granules) {
        TreeSet<Integer> standard = new TreeSet<>();
        for (int c = 0; c < SizeClasses.COUNT; c++) standard.add(SizeClasses.blockSize(c));
        int[] given = granules.stream().mapToInt(g -> g * 8).toArray(); // standard sizes and repeats included
        int[] exact = Arrays.stream(given).filter(b -> !standard.contains(b)).distinct().toArray();
        TreeSet<Integer> all = new TreeSet<>(standard);
        for (int b : exact) all.add(b);
        SizeClassTable table = new SizeClassTable(given);
        assertEquals(SizeClasses.COUNT + exact.length, table.count());
        for (int size = 1; size <= SizeClasses.MAX_SMALL; size++) {
            assertEquals(all.ceiling(size), table.blockSize(table.classOf(size)), "size " + size);
        }
        assertArrayEquals(exact, table.exactSizes());
        try (FloeAllocator a = allocator(given)) {
            assertArrayEquals(exact, a.exactSizeClasses());
            Random r = new Random(exact.length);
            for (int i = 0; i < 200; i++) {
                int size = 1 + r.nextInt(SizeClasses.MAX_SMALL);
                long off = a.allocate(size);
                assertEquals((long) all.ceiling(size), a.usableSize(off), "size " + size);
                assertEquals(a.usableSize(off), a.usableSizeFor(size));
                a.free(off);
            }
        }
    }

    @Test
    void anAllocatorWithoutExactClassesUsesTheStandardTable() {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            assertEquals(0, a.exactSizeClasses().length);
            assertEquals(1280, a.usableSizeFor(1088));
            assertEquals(8192, a.usableSizeFor(8192));
            assertEquals(10240, a.usableSizeFor(8193));
            assertEquals(20480, a.usableSizeFor(16385), "a large run: whole pages");
            assertThrows(IllegalArgumentException.class, () -> a.usableSizeFor(0));
            assertThrows(IllegalArgumentException.class, () -> a.usableSizeFor(a.maxAllocation() + 1));
        }
    }

    @Test
    void badExactSizesAreRefusedAndKnownOnesAddNothing() {
        FloeAllocator.Builder b = FloeAllocator.builder();
        for (int bad : new int[] {0, -8, 4, 1090, 16392}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.exactSizeClasses(bad));
            assertTrue(e.getMessage().contains(Integer.toString(bad)), e.getMessage());
        }
        int[] seventeen = new int[17];
        for (int i = 0; i < seventeen.length; i++) seventeen[i] = 1032 + 8 * i;
        assertThrows(IllegalArgumentException.class, () -> b.exactSizeClasses(seventeen));
        int[] sixteenAndKnown = Arrays.copyOf(seventeen, 19);
        sixteenAndKnown[16] = 1024;  // standard
        sixteenAndKnown[17] = 16384; // standard
        sixteenAndKnown[18] = 1032;  // again
        try (FloeAllocator a = b.exactSizeClasses(sixteenAndKnown).regionSize(1L << 30).jmx(false).build()) {
            assertArrayEquals(Arrays.copyOf(seventeen, 16), a.exactSizeClasses(), "known sizes add no class");
            assertEquals(1024, a.usableSize(a.allocate(1024)));
        }
    }

    /**
     * Blocks of an exact class are disjoint, fill superblocks of their own (statistics count them
     * under the class after the standard ones), keep their bytes, and go back to the OS like any
     * other when freed and trimmed.
     */
    @Test
    void exactBlocksAreDisjointCountedAndReleased() {
        try (FloeAllocator a = allocator(1088, 200)) {
            int n = 1000;
            long[] offs = new long[n];
            for (int i = 0; i < n; i++) {
                offs[i] = a.allocate(i % 2 == 0 ? 1088 : 1081);
                a.segment(offs[i]).fill((byte) i);
            }
            long[] sorted = offs.clone();
            Arrays.sort(sorted);
            for (int i = 1; i < n; i++) assertTrue(sorted[i] - sorted[i - 1] >= 1088, "blocks overlap at " + sorted[i]);
            for (int i = 0; i < n; i++) {
                MemorySegment s = a.segment(offs[i]);
                assertEquals(1088, s.byteSize());
                assertEquals((byte) i, s.get(ValueLayout.JAVA_BYTE, 0));
                assertEquals((byte) i, s.get(ValueLayout.JAVA_BYTE, 1087));
            }
            MemoryStats.ClassStats exact = a.stats().classes().stream().filter(c -> c.blockSize() == 1088).findFirst().orElseThrow();
            assertEquals(SizeClasses.COUNT, exact.sizeClass(), "the first exact class follows the standard ones");
            assertEquals(n, exact.liveBlocks());
            long perSuperblock = FloeAllocator.DEFAULT_SUPERBLOCK_SIZE / 1088;
            assertEquals((n + perSuperblock - 1) / perSuperblock, exact.superblocks());
            assertEquals((long) n * 1088, a.stats().liveBytes());
            for (long off : offs) a.free(off);
            a.trim();
            assertEquals(0, a.stats().liveBytes());
            assertTrue(a.stats().superblockReleases() >= exact.superblocks(), a.stats().toString());
        }
    }

    /** Threads allocating and freeing blocks of exact and standard classes never get a block another holds. */
    @Test
    void concurrentUseKeepsBlocksExclusive() throws Exception {
        try (FloeAllocator a = allocator(1088, 200)) {
            TestSupport.runThreads(4, id -> {
                Random r = new Random(id);
                long[] held = new long[64];
                int[] sizes = {200, 1088, 1280, 192};
                for (int i = 0; i < 50_000; i++) {
                    int k = r.nextInt(held.length);
                    long stamp = ((long) id << 32) | k;
                    if (held[k] != 0) {
                        MemorySegment s = a.segment(held[k]);
                        if (s.get(ValueLayout.JAVA_LONG, 0) != stamp || s.get(ValueLayout.JAVA_LONG, s.byteSize() - 8) != stamp) {
                            throw new AssertionError("block of thread " + id + " slot " + k + " was overwritten");
                        }
                        a.free(held[k]);
                    }
                    held[k] = a.allocate(sizes[r.nextInt(sizes.length)]);
                    MemorySegment s = a.segment(held[k]);
                    s.set(ValueLayout.JAVA_LONG, 0, stamp);
                    s.set(ValueLayout.JAVA_LONG, s.byteSize() - 8, stamp);
                }
                for (long h : held) if (h != 0) a.free(h);
            });
            assertEquals(0, a.stats().liveBytes());
        }
    }

    /** Nova over an allocator with an exact class: a slice of that block's size is one block, and stale pointers still fail. */
    @Test
    void novaSlicesUseTheExactClass() {
        try (FloeAllocator a = allocator(1088)) {
            Nova nova = new Nova(a);
            long p = nova.allocate(1088 - nova.headerBytes());
            MemoryStats.ClassStats exact = a.stats().classes().stream().filter(c -> c.blockSize() == 1088).findFirst().orElseThrow();
            assertEquals(1, exact.liveBlocks(), "the slice is one block of the exact class");
            assertEquals(1088, a.stats().liveBytes());
            nova.writePrivate(p, (s, v) -> {
                s.set(ValueLayout.JAVA_LONG, 0, v);
                return null;
            }, 42L);
            assertEquals(Long.valueOf(42), nova.read(p, s -> s.get(ValueLayout.JAVA_LONG, 0)));
            assertEquals(Long.valueOf(1088 - nova.headerBytes()), nova.read(p, MemorySegment::byteSize));
            assertTrue(nova.delete(p));
            nova.reclaimNow();
            assertNull(nova.readOr(p, s -> s.get(ValueLayout.JAVA_LONG, 0), null), "a stale pointer fails");
        }
    }
}
