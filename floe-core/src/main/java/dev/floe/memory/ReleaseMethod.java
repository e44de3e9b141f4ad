package dev.floe.memory;

/**
 * How the allocator gives the physical memory of an emptied superblock back to the OS while
 * keeping its address range readable (invariant 1) — the two methods of the LRMalloc/OA paper,
 * section 3.2. Large runs always use {@link #MADVISE}. See {@code docs/lockfree.md} for which to
 * choose.
 */
public enum ReleaseMethod {
    /**
     * {@code madvise(MADV_DONTNEED)} (default): one system call per release and none on reuse;
     * the range then maps the shared zero page, reads cost nothing and RSS is exact. A write —
     * even a CAS that fails — to a released page faults in a private page, which stays resident
     * until the superblock is reused and released again.
     */
    MADVISE,
    /**
     * Remap the superblock onto one shared frame: a {@code memfd_create} file of one superblock,
     * mapped with {@code mmap(MAP_SHARED|MAP_FIXED)} over every released superblock, and replaced
     * by {@code mmap(MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED)} when the superblock is reused (one
     * system call each way). Stray writes to freed memory cost no memory beyond the one frame.
     * Linux counts every page mapped to the frame and touched in the process's RSS
     * ({@code RssShmem}), although they share one superblock of physical memory, so RSS
     * over-reports; {@link MemoryStats#residentBytes()} (from {@code mincore}) likewise counts
     * each such page while the frame's page is in memory. Every released superblock is a
     * mapping of its own, so at most {@code vm.max_map_count} (65,530 by default) can be released
     * at once; past that {@code mmap} fails and the allocator throws
     * {@link NativeMemoryException}. Needs {@link RegionMode#MAPPED}.
     */
    SHARED_FRAME
}
