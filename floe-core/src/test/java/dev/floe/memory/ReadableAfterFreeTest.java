package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ARCHITECTURE.md invariant 1 (readable after free): every offset ever handed out stays readable
 * until the region closes; released memory reads as zeros; the allocator never writes into a
 * freed block; physical memory goes back to the OS (mapped mode).
 */
class ReadableAfterFreeTest {
    private static final long SB = 64 << 10;

    private static long pattern(long off, long word) {
        return (off * 0x9E37_79B9_7F4A_7C15L) ^ word ^ 0x5A5A_0000_0000_0001L | 1; // never 0
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void releasedSuperblocksReadAsZerosAndNeverFault(RegionMode mode) {
        try (FloeAllocator a = TestSupport.builder(mode).superblockSize(SB).build()) {
            int blockSize = 64;
            int n = (int) (8 * SB / blockSize); // eight superblocks of 64-byte blocks
            long[] offs = new long[n];
            for (int i = 0; i < n; i++) {
                offs[i] = a.allocate(blockSize);
                for (int w = 0; w < blockSize; w += 8) a.region().setLongPlain(offs[i] + w, pattern(offs[i], w));
            }
            long releasesBefore = a.stats().superblockReleases();
            for (long off : offs) a.free(off);
            a.trim();
            long releases = a.stats().superblockReleases() - releasesBefore;
            assertEquals(8, releases, "all eight superblocks released");
            assertEverythingReturned(a, SB);
            for (long off : offs) {
                for (int w = 0; w < blockSize; w += 8) {
                    long v = a.region().getLongPlain(off + w);
                    if (v != 0) fail("word +" + w + " of freed block " + off + " reads " + v + " after release, not 0");
                }
                assertEquals(0, a.region().slice(off, blockSize).toArray(java.lang.foreign.ValueLayout.JAVA_LONG)[7]);
            }

            // invariant 3: the released superblocks are reused by the same class, so every new block
            // starts where an old block of the same size started (a stale offset lands on a header)
            Set<Long> old = new HashSet<>();
            for (long off : offs) old.add(off);
            for (int i = 0; i < n; i++) {
                long off = a.allocate(blockSize);
                assertTrue(old.contains(off), "a reused superblock changed its block boundaries: " + off);
                offs[i] = off;
            }
            assertEquals(0, a.stats().superblockReleases() - releasesBefore - releases, "no new release");
            for (long off : offs) a.free(off);
            a.trim();
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freedBlocksAreNeverWrittenByTheAllocator(RegionMode mode) {
        try (FloeAllocator a = TestSupport.builder(mode).superblockSize(SB).build()) {
            int[] sizes = {8, 64, 200, 1024, 5000, SizeClasses.MAX_SMALL};
            int perSize = 100;
            long[][] offs = new long[sizes.length][perSize];
            for (int s = 0; s < sizes.length; s++) {
                for (int i = 0; i < perSize; i++) {
                    long off = a.allocate(sizes[s]);
                    offs[s][i] = off;
                    for (long w = 0; w < a.usableSize(off); w += 8) a.region().setLongPlain(off + w, pattern(off, w));
                }
            }
            long releases = a.stats().superblockReleases();
            // free everything, then churn other blocks of the same classes through the caches
            for (long[] row : offs) for (long off : row) a.free(off);
            for (int round = 0; round < 3; round++) {
                long[] tmp = new long[sizes.length * 10];
                for (int k = 0; k < tmp.length; k++) tmp[k] = a.allocate(sizes[k % sizes.length]);
                for (long off : tmp) a.free(off);
            }
            boolean released = a.stats().superblockReleases() != releases;
            for (int s = 0; s < sizes.length; s++) {
                int blockSize = SizeClasses.blockSize(SizeClasses.classOf(sizes[s]));
                for (long off : offs[s]) {
                    for (long w = 0; w < blockSize; w += 8) {
                        long v = a.region().getLongPlain(off + w);
                        // untouched by the allocator: still the user's data, or zeros if the whole
                        // superblock went back to the OS
                        if (v != pattern(off, w) && (v != 0 || !released)) {
                            fail("freed " + blockSize + "-byte block " + off + " word +" + w + " was written: " + v);
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void freedLargeRunsReadAsZeros(RegionMode mode) {
        try (FloeAllocator a = TestSupport.open(mode)) {
            long[] sizes = {SizeClasses.MAX_SMALL + 1, 100_000, 3 << 20};
            for (long size : sizes) {
                long off = a.allocate(size);
                long usable = a.usableSize(off);
                for (long w = 0; w < usable; w += 8) a.region().setLongPlain(off + w, pattern(off, w));
                a.free(off);
                for (long w = 0; w < usable; w += 8) {
                    long v = a.region().getLongPlain(off + w);
                    if (v != 0) fail("freed large run " + off + " word +" + w + " reads " + v + ", not 0");
                }
            }
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
        }
    }

    /** Physical memory goes back to the OS: a mass free + trim makes RSS (and residentBytes) fall. */
    @Test
    void residentMemoryFallsAfterAMassFree() throws IOException {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")), "needs Linux /proc");
        long total = 256L << 20;
        int blockSize = 4096;
        int n = (int) (total / blockSize);
        try (FloeAllocator a = TestSupport.open(RegionMode.MAPPED)) {
            long[] offs = new long[n];
            long rssBase = 0;
            for (int i = 0; i < n; i++) {
                offs[i] = a.allocate(blockSize);
                if (i == 0) rssBase = regionRssBytes(a, offs[0]);
                a.region().setLongPlain(offs[i], i + 1); // touch the block's page
            }
            long rssPeak = regionRssBytes(a, offs[0]);
            long residentPeak = a.stats().residentBytes();
            assertTrue(residentPeak >= total, "every touched page is resident: " + residentPeak);
            assertTrue(rssPeak - rssBase >= total * 7 / 10,
                    "touching " + (total >> 20) + " MiB raised the region's RSS by only " + ((rssPeak - rssBase) >> 20) + " MiB");

            for (long off : offs) a.free(off);
            a.trim();
            long rssAfter = regionRssBytes(a, offs[0]);
            long residentAfter = a.stats().residentBytes();
            assertTrue(rssPeak - rssAfter >= total * 7 / 10, "the region's RSS fell by only " + ((rssPeak - rssAfter) >> 20)
                    + " MiB of " + (total >> 20) + " MiB freed (peak " + (rssPeak >> 20) + " MiB, after "
                    + (rssAfter >> 20) + " MiB)");
            assertTrue(residentAfter <= total * 3 / 10, "residentBytes after free + trim: " + residentAfter);
            assertEverythingReturned(a, FloeAllocator.DEFAULT_SUPERBLOCK_SIZE);
            // and everything still reads as zeros
            for (int i = 0; i < n; i += 97) assertEquals(0, a.region().getLongPlain(offs[i]));
        }
    }

    /**
     * Resident bytes of the allocator's own mapping, as the kernel counts them: the {@code Rss} of
     * every {@code /proc/self/smaps} range that overlaps the region. Unlike the process's VmRSS it
     * does not move when the JVM grows or shrinks its heap or code cache during the test.
     */
    private static long regionRssBytes(FloeAllocator a, long someOffset) throws IOException {
        long base = a.region().slice(someOffset, 8).address() - someOffset;
        long end = base + a.region().size();
        long rss = 0;
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
                long from = Long.parseUnsignedLong(line.substring(0, dash), 16);
                long to = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
                inside = from < end && to > base;
            } else if (inside && line.startsWith("Rss:")) {
                rss += Long.parseLong(line.substring(4).trim().split("\\s+")[0]) * 1024; // kB
            }
        }
        return rss;
    }
}
