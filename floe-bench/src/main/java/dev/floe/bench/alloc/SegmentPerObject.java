package dev.floe.bench.alloc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code segment-per-object}: the plain FFM way, one {@link Arena#ofShared() shared arena} per
 * block, {@code arena.allocate(size)} to allocate and {@code arena.close()} to free. The handle
 * is the slot that holds the arena and its segment. Shared rather than confined because the
 * cross-thread workload frees on another thread than the one that allocated.
 */
final class SegmentPerObject implements OffHeapAllocator {

    private final Arena[] arenas;
    private final MemorySegment[] segments;

    SegmentPerObject(int slots) {
        this.arenas = new Arena[slots];
        this.segments = new MemorySegment[slots];
    }

    @Override
    public long alloc(int slot, int size) {
        Arena arena = Arena.ofShared();
        segments[slot] = arena.allocate(size);
        arenas[slot] = arena;
        return slot;
    }

    @Override
    public void write(long handle, long value) {
        segments[(int) handle].set(ValueLayout.JAVA_LONG_UNALIGNED, 0, value);
    }

    @Override
    public void free(long handle) {
        int slot = (int) handle;
        Arena arena = arenas[slot];
        arenas[slot] = null;
        segments[slot] = null;
        arena.close();
    }

    @Override
    public void close() {
        // every arena has been closed by free
    }
}
