package dev.floe.bench.alloc;

import java.util.SplittableRandom;

/**
 * Block sizes precomputed before the timed window, so that the hot loop draws a size with one
 * array load and no random-number generation. The same seed gives every implementation the
 * same sequence.
 */
final class SizeTable {

    private static final int LENGTH = 1 << 16;

    private final int[] sizes;
    private final int mask;

    private SizeTable(int[] sizes) {
        this.sizes = sizes;
        this.mask = sizes.length - 1;
    }

    /** Every draw is {@code size}. */
    static SizeTable fixed(int size) {
        return new SizeTable(new int[] {size});
    }

    /**
     * Sizes from {@code min} to {@code max} inclusive, log-uniform: each power-of-two band
     * (16–32, 32–64, …) is drawn equally often, as object sizes in real heaps roughly are.
     */
    static SizeTable logUniform(int min, int max, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        double span = Math.log((double) max / min);
        int[] sizes = new int[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            sizes[i] = (int) Math.min(max, Math.round(min * Math.exp(random.nextDouble() * span)));
        }
        return new SizeTable(sizes);
    }

    /** The {@code i}-th size, cycling through the table. */
    int size(int i) {
        return sizes[i & mask];
    }
}
