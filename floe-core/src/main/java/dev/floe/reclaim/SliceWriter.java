package dev.floe.reclaim;

import java.lang.foreign.MemorySegment;

/**
 * Writes a slice through a writable view bounded to it. The slice cannot be reused while the
 * writer runs (the writing thread holds a hazard slot on it).
 */
@FunctionalInterface
public interface SliceWriter<P, R> {
    R write(MemorySegment slice, P param);
}
