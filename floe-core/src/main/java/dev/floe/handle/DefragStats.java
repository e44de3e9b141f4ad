package dev.floe.handle;

/**
 * What the defragmenter ({@link Anchorage}) has done so far. A pass that failed (a copy found the
 * budget exhausted) counts too, with what the batches it finished did.
 *
 * @param passes           defragmentation passes run
 * @param objectsMoved     objects relocated
 * @param bytesMoved       block bytes relocated
 * @param pinnedSkips      moves backed off because the object was pinned
 * @param cancelledMoves   moves cancelled by a pinner or a free during the copy
 * @param totalPassNanos   wall-clock time spent in passes
 * @param maxPassNanos     longest pass, wall-clock (not a pause: passes run beside the application)
 * @param loopPassCpuNanos CPU time of the background loop's passes (wall-clock time where the JVM
 *                         cannot measure thread CPU time, or has it switched off): what the overhead bound
 *                         {@link DefragConfig#overheadBound()} limits, since the loop sleeps
 *                         {@code T_pass / O_ub} after a pass of CPU time {@code T_pass}; a pass at
 *                         idle priority on a busy machine can take far longer in wall-clock time
 * @param lastFragmentationBefore fragmentation when the last pass began
 * @param lastFragmentationAfter  fragmentation when the last pass ended
 * @param defragmenting    whether the loop is in its defragmenting state now
 */
public record DefragStats(long passes, long objectsMoved, long bytesMoved, long pinnedSkips,
                          long cancelledMoves, long totalPassNanos, long maxPassNanos, long loopPassCpuNanos,
                          double lastFragmentationBefore, double lastFragmentationAfter,
                          boolean defragmenting) {}
