package dev.floe.reclaim;

import java.lang.foreign.MemorySegment;

/**
 * Reads a slice through a read-only view bounded to it. Under Nova the read is optimistic: the
 * slice may be deleted and reused while this runs, in which case the result is discarded (the
 * call fails), so a reader must tolerate seeing arbitrary bytes — it must not loop forever or
 * act on them outside its return value. Whatever it throws on such bytes (an exception, or an
 * error such as {@link OutOfMemoryError} from an array sized by a garbage length) is discarded
 * too; on a slice that stayed live it propagates.
 *
 * <p>The view is valid only while {@code read} runs. It is a plain slice of the region (no
 * arena per read: the optimistic read keeps it in registers), so Floe cannot make a view kept
 * past the call fail: after the slice is deleted and its block reused, such a view reads the
 * next occupant's bytes, with no validation. Copy what you need out of the view instead.
 */
@FunctionalInterface
public interface SliceReader<R> {
    R read(MemorySegment slice);
}
