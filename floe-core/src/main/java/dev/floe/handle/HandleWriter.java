package dev.floe.handle;

import java.lang.foreign.MemorySegment;

/**
 * Writes (and may read) an object through a view bounded to it ({@link HandleSpace#write}). The
 * object is pinned while this runs, so the view stays valid and the object does not move.
 */
@FunctionalInterface
public interface HandleWriter<R> {
    R write(MemorySegment object);
}
