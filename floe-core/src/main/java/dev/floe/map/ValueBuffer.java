package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * A zero-copy value buffer: names the value slice it was created on and follows the value when
 * it moves (grows beyond its slice) through the forward pointer the move leaves behind. If that
 * chain can no longer be followed (a moved-from slice was already reclaimed and reused, which
 * needs a full Nova batch of deletes between the move and this read), the buffer cannot tell a
 * move from a removal and reports {@link RemovedValueException}: a fresh {@code get} finds the
 * value again.
 */
final class ValueBuffer implements OakReadBuffer {
    private final InternalOakMap<?, ?> map;
    /** The value slice (re-pointed by stream iterators, and when the value moves). */
    private long ptr;
    ValueBuffer(InternalOakMap<?, ?> map, long ptr) {
        this.map = map;
        this.ptr = ptr;
    }

    void pointTo(long ptr) {
        this.ptr = ptr;
    }

    @Override
    public int size() {
        return transform(MemorySegment::byteSize).intValue();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T transform(Function<MemorySegment, T> reader) {
        map.checkOpen();
        while (true) {
            long p = ptr;
            Object r = map.values.read(p, reader);
            if (r != ValueSlices.GONE) return (T) r;
            long q = map.values.resolve(p);
            if (q == 0 || q == ValueSlices.LOST) {
                // LOST: a slice on the way was reused, so whether the value was removed or moved
                // can no longer be told. Looking the key up again could hand out a value inserted
                // after a removal, so the buffer reports removal: never a wrong value.
                throw new RemovedValueException(q == 0 ? "the value was removed from the map"
                        : "the value was removed from the map, or moved and its old memory reused; get it again");
            }
            ptr = q; // racy re-pointing is fine: every holder of p would follow the same way
        }
    }

    @Override
    public String toString() {
        return "OakReadBuffer[value]";
    }
}
