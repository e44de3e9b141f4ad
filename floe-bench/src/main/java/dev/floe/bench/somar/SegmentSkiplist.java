package dev.floe.bench.somar;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Skiplist whose values are segments of one {@link Arena#ofShared() shared arena} each
 * ({@code segment-per-object}), closed when the value is replaced or removed. Off-heap figures:
 * value bytes of the entries.
 */
final class SegmentSkiplist extends SlMap<SegmentSkiplist.SegmentValue> {

    /** A map value: its arena and segment. */
    record SegmentValue(Arena arena, MemorySegment segment) {}

    SegmentSkiplist(int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
    }

    @Override
    SegmentValue newValue(Probe p) {
        Arena a = Arena.ofShared();
        MemorySegment s = a.allocate(valueBytes, 8);
        MemorySegment.copy(p.valueSeg, 0, s, 0, valueBytes);
        return new SegmentValue(a, s);
    }

    @Override
    void release(SegmentValue old) {
        old.arena().close();
    }

    @Override
    boolean readValue(SegmentValue v, Probe p) {
        try {
            Keys.copyOut(v.segment(), p.out);
        } catch (IllegalStateException closed) {
            return false;
        }
        p.consume();
        return true;
    }

    @Override
    public long offheapCommittedBytes() {
        return offheapLiveBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return size() * valueBytes;
    }

    @Override
    public void close() {
        releaseAll();
    }
}
