package dev.floe.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two release methods of the OA paper (section 3.2), measured on the region's resident pages
 * ({@code mincore}, {@link MemoryStats#residentBytes}) and the process's own RSS
 * ({@code /proc/self/status}): both give an emptied superblock's memory back; after a sweep of
 * failing CASes over the freed range (what a stray optimistic CAS does), MADVISE has faulted in
 * private pages again while SHARED_FRAME has not — but Linux then counts the frame's pages once
 * per mapped page in {@code RssShmem} (the over-reporting the paper describes). Reuse makes the
 * memory private again: values written to different reused superblocks do not alias.
 */
class SharedFrameReleaseTest {
    private static final int BLOCK = 1024;
    private static final long BYTES = 96L << 20;
    private static final int BLOCKS = (int) (BYTES / BLOCK);

    @ParameterizedTest
    @EnumSource(ReleaseMethod.class)
    void releaseGivesMemoryBackAndStrayCasesCostWhatTheMethodSays(ReleaseMethod method) throws IOException {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(4L << 30).jmx(false)
                .mode(RegionMode.MAPPED).releaseMethod(method).build()) {
            assertEquals(method, alloc.releaseMethod());
            Region region = alloc.region();
            long[] blocks = new long[BLOCKS];
            for (int i = 0; i < BLOCKS; i++) {
                blocks[i] = alloc.allocate(BLOCK);
                for (int o = 0; o < BLOCK; o += 512) region.setLongPlain(blocks[i] + o, i + 1);
            }
            long residentFull = alloc.stats().residentBytes();
            for (long b : blocks) alloc.free(b);
            alloc.trim();
            assertTrue(alloc.stats().superblockReleases() > 0, "no superblock was released");
            long residentFreed = alloc.stats().residentBytes();
            long anonFreed = status("RssAnon");
            long shmemFreed = status("RssShmem");
            assertTrue(residentFull - residentFreed >= BYTES * 8 / 10,
                    method + ": the region's resident memory fell by " + (residentFull - residentFreed) + " of " + BYTES);

            // stray CASes on freed memory: they all fail (released memory reads as zeros) ...
            for (int i = 0; i < BLOCKS; i += 4096 / BLOCK) {
                assertFalse(region.compareAndSetLong(blocks[i], 0x5555L, 1L));
            }
            long residentStray = alloc.stats().residentBytes();
            long anonStray = status("RssAnon");
            long shmemStray = status("RssShmem");
            if (method == ReleaseMethod.MADVISE) {
                // ... but each faulted in a private page (counted in the region itself with
                // mincore: the process's RssAnon also moves with the JVM's own memory, which
                // once fell by 24 MiB during this loop)
                assertTrue(residentStray - residentFreed >= BYTES / 2,
                        "MADVISE: failing CASes should fault pages in, the region's resident memory rose by "
                                + (residentStray - residentFreed));
            } else {
                // ... and cost no private memory (RssAnon: mincore cannot tell private pages from
                // the frame's; the margin absorbs the JVM's own movements, the sweep would add
                // 96 MiB under MADVISE); RSS counts the shared frame once per page
                assertTrue(anonStray - anonFreed < BYTES / 4,
                        "SHARED_FRAME: failing CASes must not cost memory, RssAnon rose by " + (anonStray - anonFreed));
                assertTrue(shmemStray - shmemFreed >= BYTES / 2,
                        "SHARED_FRAME: RssShmem should over-report the frame, rose by " + (shmemStray - shmemFreed));
                // mincore sees the frame's pages resident through every mapping of them
                assertTrue(alloc.stats().residentBytes() >= BYTES / 2,
                        "SHARED_FRAME: mincore should count the frame once per mapped page: "
                                + alloc.stats().residentBytes());
            }

            // reuse: private again, starts zeroed, no aliasing between superblocks
            for (int i = 0; i < BLOCKS; i++) {
                blocks[i] = alloc.allocate(BLOCK);
                assertEquals(0L, region.getLongPlain(blocks[i] + 8), "reused memory must read zeros");
                region.setLongPlain(blocks[i] + 8, ~i);
            }
            for (int i = 0; i < BLOCKS; i++) assertEquals(~i, region.getLongPlain(blocks[i] + 8));
            for (long b : blocks) alloc.free(b);
        }
    }

    @Test
    void sharedFrameNeedsAMappedRegion() {
        assertThrows(IllegalArgumentException.class, () -> FloeAllocator.builder().jmx(false)
                .mode(RegionMode.ARENA_CHUNKS).releaseMethod(ReleaseMethod.SHARED_FRAME).build());
        assertThrows(NullPointerException.class, () -> FloeAllocator.builder().releaseMethod(null));
        try (FloeAllocator a = FloeAllocator.builder().jmx(false).regionSize(1L << 30)
                .mode(RegionMode.ARENA_CHUNKS).build()) {
            assertEquals(ReleaseMethod.MADVISE, a.releaseMethod());
        }
    }

    /** A field of /proc/self/status, in bytes. */
    static long status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) {
                String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
                return Long.parseLong(parts[0]) * 1024;
            }
        }
        throw new IllegalStateException(field + " not in /proc/self/status");
    }
}
