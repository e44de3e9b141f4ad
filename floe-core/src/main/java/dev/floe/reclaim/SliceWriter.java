package dev.floe.reclaim;

import java.lang.foreign.MemorySegment;

/**
 * Writes a slice through a writable view bounded to it. The slice cannot be reused while the
 * writer runs (the writing thread holds a hazard slot on it).
 *
 * <p>The view is valid only while {@code write} runs: it is a plain slice of the region, so
 * Floe cannot make a view kept past the call fail, and once the slice is deleted and its block
 * reused, writes through such a view land in the next occupant (see {@link SliceReader}).
 */
@FunctionalInterface
public interface SliceWriter<P, R> {
    R write(MemorySegment slice, P param);
}
