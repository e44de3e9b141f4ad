package dev.floe.map;

import java.lang.foreign.MemorySegment;

/**
 * An on-heap copy of a serialized key: a chunk's minKey (so that the index never reads off-heap
 * memory a rebalance may retire) or a probe that must outlive the key it was copied from. Backed
 * by a {@code long[]}, so that the segment is 8-byte aligned like an off-heap key and a user
 * comparator's aligned accesses behave the same on both.
 */
final class KeyCopy {
    final MemorySegment segment;
    /** The key's order prefix ({@link OakComparator#prefixOf}). */
    final long prefix;
    /**
     * For a chunk's minKey in the index: the chunk it starts (the first chunk covering it, set
     * before the key is added to the index and moved on by each rebalance of that chunk); null
     * for other copies.
     */
    volatile Chunk chunk;

    private KeyCopy(MemorySegment segment, long prefix) {
        this.segment = segment;
        this.prefix = prefix;
    }

    static KeyCopy of(MemorySegment source, OakComparator<?> comparator) {
        long n = source.byteSize();
        MemorySegment heap = MemorySegment.ofArray(new long[(int) ((n + 7) >>> 3)]).asSlice(0, n);
        heap.copyFrom(source);
        MemorySegment ro = heap.asReadOnly();
        return new KeyCopy(ro, comparator.prefixOfSerialized(ro));
    }
}
