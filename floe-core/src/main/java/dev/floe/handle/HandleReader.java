package dev.floe.handle;

import java.lang.foreign.MemorySegment;

/**
 * Reads an object through a read-only view bounded to it ({@link HandleSpace#read}). The read is
 * optimistic: if the object moves or is freed while this runs, the result (or exception) is
 * discarded and the read retried or failed, so a reader must tolerate arbitrary bytes — it must
 * not loop forever on them or act on them outside its return value.
 */
@FunctionalInterface
public interface HandleReader<R> {
    R read(MemorySegment object);
}
