/**
 * Floe's native memory layer: one {@link dev.floe.memory.Region} of off-heap memory and a
 * lock-free size-class allocator over it, {@link dev.floe.memory.FloeAllocator}.
 *
 * <h2>The protocol in one page</h2>
 * <ol>
 *   <li><b>Region.</b> One large virtual range ({@code mmap(MAP_NORESERVE)}, 256 GiB by default)
 *       accessed through one bounded {@code MemorySegment}; every reference is an offset into it.
 *       Nothing is unmapped or protected while it is open, so every offset ever handed out stays
 *       readable (<em>readable after free</em>, the Optimistic Access paper's addition to
 *       LRMalloc). Physical memory goes back with {@code madvise(MADV_DONTNEED)}; later reads see
 *       zeros. Without native access the region is grown from {@code Arena} chunks instead
 *       ({@link dev.floe.memory.RegionMode#ARENA_CHUNKS}).</li>
 *   <li><b>Size classes</b> ({@link dev.floe.memory.SizeClasses}): 40 classes, 8 B to 16 KiB.
 *       Larger requests are page runs from the upper half of the region
 *       ({@code LargeRuns}).</li>
 *   <li><b>Superblocks</b> (256 KiB by default) are carved for one class and keep it for the life
 *       of their address range, so a stale offset always lands on a block boundary of the same
 *       size. A descriptor per superblock ({@code Superblock}) is found by
 *       {@code offset >> log2(superblockSize)}. Its <em>anchor</em> word (state FULL / PARTIAL /
 *       RELEASING / EMPTY and a free count) changes only by CAS; free blocks are tracked in a
 *       bitmap beside the descriptor, never inside the freed blocks.</li>
 *   <li><b>Caches</b> ({@code BlockCaches}): a fixed set of stripes, each claimed by one thread for
 *       one call with a CAS; bins are filled from a partial superblock by taking many blocks with
 *       one anchor CAS and flushed back one CAS per superblock run. Caches belong to no thread, so
 *       virtual threads and dying threads strand nothing, and cached memory is bounded.</li>
 *   <li><b>Release.</b> The flush that returns a superblock's last block moves it to RELEASING,
 *       calls {@code madvise}, then makes it EMPTY and offers it for reuse by the same class
 *       ({@code SuperblockHeap} documents the hand-off with the partial stack).</li>
 *   <li><b>Misuse</b> is detected by a live byte per block (set on allocation, cleared by a CAS on
 *       free): double frees, interior or foreign offsets are refused with
 *       {@link dev.floe.memory.IllegalFreeException} and change nothing.</li>
 * </ol>
 *
 * <h2>Memory ordering at a glance</h2>
 * Anchors, stack heads, bitmap words and cache-stripe claims are updated by CAS (full fence);
 * descriptors and directory entries are published with release stores and read with acquire
 * loads; a stripe's bins are plain arrays guarded by its claim (acquire on claim, release on
 * unclaim). See each class's overview comment for its invariants.
 */
package dev.floe.memory;
