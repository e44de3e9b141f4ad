package dev.floe.bench.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The unique-count sketch of the rollup index: a HyperLogLog with 4-bit registers packed two per
 * byte, the geometry of Druid's {@code hyperUnique} aggregator (2,048 registers in 1,024 bytes,
 * whose dense form with its 7-byte header is the 1,031-byte value part that dominates the ~1.25 KB
 * tuples of the Oak paper's Druid experiment). Simplification: a register saturates at 15 where
 * Druid keeps a shared register offset; that only matters past billions of distinct values.
 *
 * <p>The same update runs on a {@code byte[]} (the on-heap aggregator) and on a segment (the
 * off-heap buffer aggregator), so both indexes hold identical registers for identical input.
 */
final class RollupSketch {

    private RollupSketch() {}

    /** Druid's register count, 2^11. */
    static final int DRUID_BYTES = 1024;

    /** A 64-bit hash of a user id (the SplitMix64 finalizer: a bijection with good avalanche). */
    static long hash(long userId) {
        long z = userId + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** log2 of the register count of a sketch of {@code bytes} bytes (a power of two, at least 8). */
    static int log2Registers(int bytes) {
        if (bytes < 8 || Integer.bitCount(bytes) != 1) {
            throw new IllegalArgumentException("sketch bytes must be a power of two >= 8: " + bytes);
        }
        return Integer.numberOfTrailingZeros(bytes) + 1;
    }

    /** The register a hash updates (its top {@code p} bits). */
    static int register(long hash, int p) {
        return (int) (hash >>> (64 - p));
    }

    /** The rank a hash offers: position of the first 1 bit after the register bits, 1-based, at most 15. */
    static int rank(long hash, int p) {
        long w = hash << p;
        int r = w == 0 ? 64 - p + 1 : Long.numberOfLeadingZeros(w) + 1;
        return Math.min(r, 15);
    }

    /** Updates an on-heap sketch. */
    static void update(byte[] registers, int p, long hash) {
        int reg = register(hash, p);
        int rank = rank(hash, p);
        int i = reg >>> 1;
        int b = registers[i];
        int shift = (reg & 1) << 2;
        if (rank > ((b >>> shift) & 0xF)) registers[i] = (byte) ((b & ~(0xF << shift)) | (rank << shift));
    }

    /** Updates a sketch at {@code offset} of a segment (off-heap, in place). */
    static void update(MemorySegment s, long offset, int p, long hash) {
        int reg = register(hash, p);
        int rank = rank(hash, p);
        long i = offset + (reg >>> 1);
        int b = s.get(ValueLayout.JAVA_BYTE, i);
        int shift = (reg & 1) << 2;
        if (rank > ((b >>> shift) & 0xF)) s.set(ValueLayout.JAVA_BYTE, i, (byte) ((b & ~(0xF << shift)) | (rank << shift)));
    }

    /** The HyperLogLog estimate of the distinct count, with the linear-counting correction for small counts. */
    static double estimate(byte[] registers) {
        int m = registers.length * 2;
        double sum = 0;
        int zeros = 0;
        for (byte b : registers) {
            int lo = b & 0xF, hi = (b >>> 4) & 0xF;
            sum += Math.scalb(1.0, -lo) + Math.scalb(1.0, -hi);
            if (lo == 0) zeros++;
            if (hi == 0) zeros++;
        }
        double alpha = 0.7213 / (1 + 1.079 / m);
        double e = alpha * m * (double) m / sum;
        if (e <= 2.5 * m && zeros > 0) e = m * Math.log((double) m / zeros);
        return e;
    }
}
