package dev.floe.memory;

/**
 * The size-class table (LRMalloc's jemalloc-style classes) and a direct lookup from size to class.
 *
 * <pre>
 *  class  block size                         step
 *   0- 7  8 16 24 32 40 48 56 64             8 B
 *   8-11  80 96 112 128                      16 B    \
 *  12-15  160 192 224 256                    32 B     |
 *  16-19  320 384 448 512                    64 B     |  four classes per
 *  20-23  640 768 896 1024                   128 B    |  power of two
 *  24-27  1280 1536 1792 2048                256 B    |
 *  28-31  2560 3072 3584 4096                512 B    |
 *  32-35  5120 6144 7168 8192                1 KiB    |
 *  36-39  10240 12288 14336 16384            2 KiB   /
 * </pre>
 *
 * LRMalloc stops at 14 KiB (39 classes); Floe adds the 16 KiB class (40 classes) so that every
 * request from 1 B to 16 KiB is served from the caches. Larger requests are large runs. Internal
 * fragmentation is at most 25% above 64 B (one quarter step of a power of two) and below 8 B
 * below. Every block size is a multiple of 8, so every block, and the 8-byte words the layers
 * above CAS in it, is 8-byte aligned.
 *
 * <p>These are every allocator's classes 0 to 39; an allocator may add exact ones after them
 * ({@link FloeAllocator.Builder#exactSizeClasses}), and then {@link FloeAllocator#usableSizeFor}
 * rather than this table says which block a request gets. Lookup goes through
 * {@link SizeClassTable#STANDARD}, the table of an allocator without exact classes: one byte per
 * 8-byte granule of request size gives the class directly.
 */
public final class SizeClasses {
    /** Number of size classes. */
    public static final int COUNT = 40;
    /** Largest request served from a size class; larger ones are large runs. */
    public static final int MAX_SMALL = 16384;

    private static final int[] BLOCK_SIZE = new int[COUNT];

    static {
        int c = 0;
        for (int s = 8; s <= 64; s += 8) BLOCK_SIZE[c++] = s;
        for (int base = 64; c < COUNT; base <<= 1) {
            for (int q = 1; q <= 4; q++) BLOCK_SIZE[c++] = base + q * (base >>> 2);
        }
    }

    private SizeClasses() {}

    /**
     * The class serving a request of {@code size} bytes.
     *
     * @throws IllegalArgumentException if {@code size} is not in [1, {@link #MAX_SMALL}] (the
     *                                  table has no entry for it: a size of 0, a negative one or
     *                                  one that wraps past {@code Long.MAX_VALUE} read entry 0 and
     *                                  got class 0 silently)
     */
    public static int classOf(long size) {
        if (size <= 0 || size > MAX_SMALL) {
            throw new IllegalArgumentException("request size " + size + " is not in [1, " + MAX_SMALL + "]");
        }
        return SizeClassTable.STANDARD.classOf(size);
    }

    /**
     * Block size of class {@code sizeClass}.
     *
     * @throws IllegalArgumentException if {@code sizeClass} is not in [0, {@link #COUNT})
     */
    public static int blockSize(int sizeClass) {
        if (sizeClass < 0 || sizeClass >= COUNT) {
            throw new IllegalArgumentException("size class " + sizeClass + " is not in [0, " + COUNT + ")");
        }
        return BLOCK_SIZE[sizeClass];
    }
}
