package dev.floe.bench.alloc;

import dev.floe.bench.harness.StopSignal;
import dev.floe.bench.harness.TimedTask;

/**
 * One thread of the {@code same-thread} and {@code mixed-sizes} workloads: a ring of live blocks
 * where each operation frees the oldest block and allocates its replacement in the same
 * position (one alloc/free pair), then writes one long into the new block.
 *
 * <p>The ring keeps a steady working set ({@code ring} blocks per thread), so the allocator runs
 * in its steady state rather than growing; ring position {@code i} is also the block's slot
 * ({@code slotBase + i}), which is free exactly when the old block there has been freed.
 */
final class RingTask implements TimedTask {

    private final OffHeapAllocator allocator;
    private final int slotBase;
    private final long[] ring;
    private final SizeTable sizes;
    private int draw;

    /**
     * @param ringSize a power of two
     * @param firstDraw where this thread starts in the size table, so threads draw different sizes
     */
    RingTask(OffHeapAllocator allocator, int slotBase, int ringSize, SizeTable sizes, int firstDraw) {
        if (Integer.bitCount(ringSize) != 1) throw new IllegalArgumentException("ring size must be a power of two");
        this.allocator = allocator;
        this.slotBase = slotBase;
        this.ring = new long[ringSize];
        this.sizes = sizes;
        this.draw = firstDraw;
    }

    @Override
    public void setUp() {
        for (int i = 0; i < ring.length; i++) {
            ring[i] = allocator.alloc(slotBase + i, sizes.size(draw++));
            allocator.write(ring[i], i);
        }
    }

    @Override
    public long run(StopSignal stop) {
        OffHeapAllocator a = allocator;
        long[] blocks = ring;
        SizeTable table = sizes;
        int mask = blocks.length - 1;
        int base = slotBase;
        int d = draw;
        long ops = 0;
        while (!stop.isRaised()) {
            int i = (int) ops & mask;
            a.free(blocks[i]);
            long block = a.alloc(base + i, table.size(d++));
            a.write(block, ops);
            blocks[i] = block;
            ops++;
        }
        draw = d;
        return ops;
    }

    @Override
    public void tearDown() {
        for (long block : ring) allocator.free(block);
    }
}
