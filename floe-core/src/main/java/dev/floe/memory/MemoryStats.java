package dev.floe.memory;

import java.util.List;

/**
 * A snapshot of one allocator's memory, cheap enough to take every second.
 *
 * @param mode               how the region is backed
 * @param regionBytes        reserved address space
 * @param liveBytes          bytes in blocks currently allocated to users (block sizes, i.e.
 *                           usable sizes; large runs counted by their page-rounded length)
 * @param committedBytes     bytes of superblocks that are not released plus bytes of live large
 *                           runs: memory Floe has touched and not given back (what the budget caps)
 * @param residentBytes      bytes of the region backed by physical memory right now (from
 *                           {@code mincore} in mapped mode; all chunk bytes in arena mode)
 * @param budgetBytes        the cap on committed bytes, or {@code Long.MAX_VALUE} for none
 * @param cachedBytes        bytes of free blocks held in the bounded cache stripes (they keep
 *                           their superblocks committed until {@link FloeAllocator#trim()}, a
 *                           cache overflow, or an allocation that would exceed the budget)
 * @param superblocksFull    superblocks with no free block in them
 * @param superblocksPartial superblocks with some free blocks
 * @param superblocksEmpty   superblocks released to the OS, kept for reuse by their size class
 * @param largeRuns          live large allocations
 * @param largeLiveBytes     bytes of live large allocations
 * @param superblockReleases superblocks released to the OS since the allocator opened
 * @param classes            per size class: block size, live blocks, superblocks in use
 */
public record MemoryStats(RegionMode mode, long regionBytes, long liveBytes, long committedBytes,
                          long residentBytes, long budgetBytes, long cachedBytes,
                          long superblocksFull, long superblocksPartial, long superblocksEmpty,
                          long largeRuns, long largeLiveBytes, long superblockReleases,
                          List<ClassStats> classes) {

    /** One size class: its block size, live blocks, and superblocks carved for it and not released. */
    public record ClassStats(int sizeClass, int blockSize, long liveBlocks, long superblocks) {}

    @Override
    public String toString() {
        return "MemoryStats[mode=" + mode + ", live=" + liveBytes + ", committed=" + committedBytes
                + ", resident=" + residentBytes + ", cached=" + cachedBytes
                + ", budget=" + (budgetBytes == Long.MAX_VALUE ? "none" : budgetBytes)
                + ", superblocks full/partial/empty=" + superblocksFull + "/" + superblocksPartial
                + "/" + superblocksEmpty + ", large=" + largeRuns + " (" + largeLiveBytes + " B)"
                + ", releases=" + superblockReleases + "]";
    }
}
