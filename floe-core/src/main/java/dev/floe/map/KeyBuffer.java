package dev.floe.map;

import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * A zero-copy key buffer: a Nova optimistic read of the immutable key slice. A key slice is
 * retired when a rebalance drops its entry (the key was removed), and then reads fail.
 */
final class KeyBuffer implements OakReadBuffer {
    private final InternalOakMap<?, ?> map;
    private long ptr;

    KeyBuffer(InternalOakMap<?, ?> map, long ptr) {
        this.map = map;
        this.ptr = ptr;
    }

    void pointTo(long ptr) {
        this.ptr = ptr;
    }

    @Override
    public int size() {
        map.checkOpen();
        Nova nova = map.nova;
        long p = ptr;
        long stamp = nova.beginRead(p);
        if (stamp == 0) throw removed();
        long size = map.keys.length(p, stamp);
        if (!nova.validate(p, stamp)) throw removed();
        return (int) size;
    }

    @Override
    public <T> T transform(Function<MemorySegment, T> reader) {
        map.checkOpen();
        Nova nova = map.nova;
        long p = ptr;
        long stamp = nova.beginRead(p);
        if (stamp == 0) throw removed();
        T r;
        try {
            r = reader.apply(map.keys.view(p, stamp));
        } catch (Throwable e) { // also Errors: a reused slice's garbage can make user code allocate or recurse wildly
            if (nova.validate(p, stamp)) throw e;
            throw removed();
        }
        if (!nova.validate(p, stamp)) throw removed();
        return r;
    }

    /** The failure of a read whose key slice was retired: the map's close if it came meanwhile, else the removal. */
    private RuntimeException removed() {
        map.checkOpen(); // closed during the read: IllegalStateException, as for any use after close
        return new RemovedValueException("the key was removed from the map and its memory reclaimed");
    }

    @Override
    public String toString() {
        return "OakReadBuffer[key]";
    }
}
