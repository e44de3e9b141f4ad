package dev.floe.bench.alloc;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code floe-alloc}: a fresh {@link FloeAllocator} with default settings per trial. The handle
 * is the block's offset. The touch writes through the region's word accessor
 * ({@code region().setLongPlain}), which is bounds-checked against the region (a wrong offset can
 * never reach memory outside it) but, like malloc's raw write, does not look the block up: the
 * suite measures the allocator, not the per-block view. (Writing through {@code segment(off, 8)}
 * adds a block lookup and a slice object per operation.) Committed and live bytes come from
 * {@link FloeAllocator#stats()}.
 */
final class FloeAlloc implements OffHeapAllocator {

    private static final AtomicInteger TRIALS = new AtomicInteger();

    private final FloeAllocator floe = FloeAllocator.builder()
            .name("bench-alloc-" + TRIALS.incrementAndGet())
            .build();
    private final Region region = floe.region();

    @Override
    public long alloc(int slot, int size) {
        return floe.allocate(size);
    }

    @Override
    public void write(long handle, long value) {
        region.setLongPlain(handle, value);
    }

    @Override
    public void free(long handle) {
        floe.free(handle);
    }

    @Override
    public void trim() {
        floe.trim();
    }

    @Override
    public long committedBytes() {
        return floe.stats().committedBytes();
    }

    @Override
    public long liveBytes() {
        return floe.stats().liveBytes();
    }

    @Override
    public void close() {
        floe.close();
    }
}
