package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * A zero-copy value buffer: names the value slice it was created on and follows the value when
 * it moves (grows beyond its slice). If the chain of moves can no longer be followed (a moved-from
 * slice was already reused), it finds the value again through its key.
 */
final class ValueBuffer implements OakReadBuffer {
    private final InternalOakMap<?, ?> map;
    /** The value slice (re-pointed by stream iterators, and when the value moves). */
    private long ptr;
    /** The key as a probe (a user key object), or null: then {@link #keyPtr} names it. */
    private Object probe;
    /** The key slice of the entry, to find the value again when there is no probe. */
    private long keyPtr;

    ValueBuffer(InternalOakMap<?, ?> map, long ptr, Object probe, long keyPtr) {
        this.map = map;
        this.ptr = ptr;
        this.probe = probe;
        this.keyPtr = keyPtr;
    }

    void pointTo(long ptr, long keyPtr) {
        this.ptr = ptr;
        this.probe = null;
        this.keyPtr = keyPtr;
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
            if (q == ValueSlices.LOST) {
                Object key = probe != null ? probe : map.keys.copy(keyPtr);
                q = key == null ? 0 : map.liveValue(key);
            }
            if (q == 0 || q == ValueSlices.LOST) {
                throw new RemovedValueException("the value was removed from the map");
            }
            ptr = q; // racy re-pointing is fine: every holder of p would follow the same way
        }
    }

    @Override
    public String toString() {
        return "OakReadBuffer[value]";
    }
}
