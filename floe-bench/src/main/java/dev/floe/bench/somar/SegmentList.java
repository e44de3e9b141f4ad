package dev.floe.bench.somar;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * LL-map with one {@link Arena#ofShared() shared arena} per key and per value
 * ({@code segment-per-object}): what a plain FFM user writes. Deleting closes both arenas; a
 * thread that still reaches a closed segment gets an {@link IllegalStateException} from the
 * JDK's scope check, which counts as a deleted slice. The off-heap figures are the key and value
 * bytes of the entries (FFM keeps no counters; malloc's overhead is not included).
 */
final class SegmentList extends LlMap {

    static final class SegmentNode extends Node {
        final Arena keyArena;
        final MemorySegment key;
        final Arena valueArena;
        final MemorySegment value;

        SegmentNode(Arena keyArena, MemorySegment key, Arena valueArena, MemorySegment value) {
            this.keyArena = keyArena;
            this.key = key;
            this.valueArena = valueArena;
            this.value = value;
        }
    }

    SegmentList(int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
    }

    @Override
    int compareKey(Node n, Probe p) {
        try {
            return Keys.compare(((SegmentNode) n).key, p);
        } catch (IllegalStateException closed) {
            return FAILED;
        }
    }

    @Override
    Node newNode(Probe p) {
        Arena ka = Arena.ofShared();
        MemorySegment k = ka.allocate(keyBytes, 8);
        MemorySegment.copy(p.keySeg, 0, k, 0, keyBytes);
        Arena va = Arena.ofShared();
        MemorySegment v = va.allocate(valueBytes, 8);
        MemorySegment.copy(p.valueSeg, 0, v, 0, valueBytes);
        return new SegmentNode(ka, k, va, v);
    }

    @Override
    void discard(Node n) {
        retire(n);
    }

    @Override
    boolean overwrite(Node n, Probe p) {
        try {
            MemorySegment.copy(p.valueSeg, 0, ((SegmentNode) n).value, 0, valueBytes);
            return true;
        } catch (IllegalStateException closed) {
            return false;
        }
    }

    @Override
    boolean readValue(Node n, Probe p) {
        try {
            Keys.copyOut(((SegmentNode) n).value, p.out);
        } catch (IllegalStateException closed) {
            return false;
        }
        p.consume();
        return true;
    }

    @Override
    void retire(Node n) {
        SegmentNode x = (SegmentNode) n;
        x.keyArena.close();
        x.valueArena.close();
    }

    @Override
    long keyId(Node n) {
        try {
            return Keys.id(((SegmentNode) n).key);
        } catch (IllegalStateException closed) {
            return -1;
        }
    }

    @Override
    public long offheapCommittedBytes() {
        return offheapLiveBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return size() * (keyBytes + valueBytes);
    }

    @Override
    public void close() {
        for (Node n : nodes()) retire(n);
    }
}
