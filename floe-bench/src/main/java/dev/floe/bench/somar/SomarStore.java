package dev.floe.bench.somar;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.MemoryStats;
import dev.floe.reclaim.Somar;

/**
 * A SOMAR implementation with the Floe allocator under it, owned by one structure: the memory
 * figures of the report come from the allocator, and closing the structure closes it.
 */
record SomarStore(Somar somar, FloeAllocator allocator) {

    long committedBytes() {
        return allocator.stats().committedBytes();
    }

    long liveBytes() {
        return allocator.stats().liveBytes();
    }

    MemoryStats stats() {
        return allocator.stats();
    }

    void close() {
        allocator.close();
    }
}
