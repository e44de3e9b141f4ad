package dev.floe.handle;

/**
 * What the defragmenter ({@link Anchorage}) has done so far.
 *
 * @param passes           defragmentation passes run
 * @param objectsMoved     objects relocated
 * @param bytesMoved       block bytes relocated
 * @param pinnedSkips      moves backed off because the object was pinned
 * @param cancelledMoves   moves cancelled by a pinner or a free during the copy
 * @param totalPassNanos   time spent in passes
 * @param maxPassNanos     longest pass (not a pause: passes run beside the application)
 * @param lastFragmentationBefore fragmentation when the last pass began
 * @param lastFragmentationAfter  fragmentation when the last pass ended
 * @param defragmenting    whether the loop is in its defragmenting state now
 */
public record DefragStats(long passes, long objectsMoved, long bytesMoved, long pinnedSkips,
                          long cancelledMoves, long totalPassNanos, long maxPassNanos,
                          double lastFragmentationBefore, double lastFragmentationAfter,
                          boolean defragmenting) {}
