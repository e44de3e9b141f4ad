package dev.floe.memory;

import java.util.Arrays;

/**
 * The size classes of one allocator: the 40 standard classes of {@link SizeClasses}, then the
 * exact classes its builder added ({@link FloeAllocator.Builder#exactSizeClasses}), in the order
 * given. A request goes to the class with the smallest block that holds it, standard or exact.
 *
 * <p>Why exact classes: the standard classes waste up to a quarter of a block (a 1,088-byte
 * record takes a 1,280-byte block). A structure whose records all have one size (Oak's rollup
 * rows, fixed-layout structs) can give the allocator that size as a class of its own and waste
 * nothing per block, as the Oak paper's allocator, which carves exact sizes, does. Each class
 * costs its own superblocks and cache bins, so an allocator takes at most {@link #MAX_EXACT}.
 *
 * <p>Lookup is as fast as the standard table's: one byte per 8-byte granule of request size.
 */
final class SizeClassTable {
    /** Most exact classes one allocator may add. */
    static final int MAX_EXACT = 16;
    /** The standard table alone. */
    static final SizeClassTable STANDARD = new SizeClassTable(new int[0]);

    private final int[] blockSize;
    private final byte[] lookup = new byte[(SizeClasses.MAX_SMALL >>> 3) + 1];

    /**
     * The standard classes plus those of {@code exact} that are not classes already (a standard
     * block size, or one given earlier, adds nothing: blocks of that size exist).
     *
     * @throws IllegalArgumentException if one is not a multiple of 8 in [8,
     *                                  {@link SizeClasses#MAX_SMALL}], or more than
     *                                  {@link #MAX_EXACT} classes would be added
     */
    SizeClassTable(int[] exact) {
        int standard = SizeClasses.COUNT;
        int[] sizes = new int[standard + exact.length];
        for (int c = 0; c < standard; c++) sizes[c] = SizeClasses.blockSize(c);
        int n = standard;
        for (int b : exact) {
            if (b < 8 || b > SizeClasses.MAX_SMALL || (b & 7) != 0) {
                throw new IllegalArgumentException("exact size class of " + b + " bytes: must be a multiple of 8 from 8 to "
                        + SizeClasses.MAX_SMALL);
            }
            boolean known = false;
            for (int c = 0; c < n && !known; c++) known = sizes[c] == b;
            if (!known) sizes[n++] = b;
        }
        if (n - standard > MAX_EXACT) {
            throw new IllegalArgumentException((n - standard) + " exact size classes; at most " + MAX_EXACT);
        }
        blockSize = Arrays.copyOf(sizes, n);
        for (int g = 1; g < lookup.length; g++) {
            int size = g << 3, best = -1;
            for (int c = 0; c < blockSize.length; c++) {
                if (blockSize[c] >= size && (best < 0 || blockSize[c] < blockSize[best])) best = c;
            }
            lookup[g] = (byte) best;
        }
    }

    /** Number of classes: 40 standard ones, then the exact ones. */
    int count() {
        return blockSize.length;
    }

    /** The class serving a request of {@code size} bytes, {@code 1 <= size <= MAX_SMALL}. */
    int classOf(long size) {
        return lookup[(int) ((size + 7) >>> 3)];
    }

    int blockSize(int sizeClass) {
        return blockSize[sizeClass];
    }

    /** The exact classes' block sizes, in class order. */
    int[] exactSizes() {
        return Arrays.copyOfRange(blockSize, SizeClasses.COUNT, blockSize.length);
    }
}
