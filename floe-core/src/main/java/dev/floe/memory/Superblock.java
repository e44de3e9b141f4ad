package dev.floe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The descriptor of one superblock (LRMalloc's descriptor): where it is, its size class, its
 * anchor, and two pieces of per-block state kept <em>outside</em> the blocks.
 *
 * <p>LRMalloc threads its free list through the free blocks themselves. Floe must not: a freed
 * block stays readable (invariant 1) and the layers above validate stale reads against the
 * block's first word (Nova's header), so the allocator never writes into a block it does not
 * own. Instead:
 * <ul>
 *   <li>{@link #freeBits}: bit {@code i} set iff block {@code i} is in this superblock's free
 *       pool. Flushes set bits <em>before</em> they add to the anchor's count; fills subtract
 *       from the count <em>before</em> they clear bits. So the number of set bits is always at
 *       least the count, and a filler that won {@code n} blocks by CAS always finds {@code n}
 *       bits to take (possibly different blocks than a racing flusher's, which is fine).</li>
 *   <li>{@link #live}: one byte per block, 1 while the block is allocated to a user. Allocation
 *       sets it with a release store (only the cache holding a block can allocate it); free
 *       clears it with a CAS, which is how double frees, concurrent frees of one block, and
 *       frees of cached or never-allocated blocks are rejected (exactly one of racing frees
 *       wins). Cost: one byte per block (12.5% of an 8-byte block, under 2% from 64 B up) on
 *       heap, and one CAS per free.</li>
 * </ul>
 * A superblock keeps its size class for the life of its address range (ARCHITECTURE.md
 * invariant 3), so these arrays are allocated once per superblock index.
 */
final class Superblock {
    private static final VarHandle ANCHOR;
    private static final VarHandle BITS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle LIVE = MethodHandles.arrayElementVarHandle(byte[].class);

    final int index;
    final long offset;
    final int sizeClass;
    final int blockSize;
    final int blockCount;
    private final long reciprocal;
    final long[] freeBits;
    final byte[] live;
    /** Link for {@link DescriptorStack}: index+1 of the next descriptor, 0 at the bottom. */
    int next;
    /**
     * Whether the descriptor is in a {@link DescriptorStack}, kept only when assertions are on
     * (tests): a second push before a pop would make the stack a cycle, so a push asserts the
     * heap's promise that a descriptor is in at most one stack at a time. Plain: a push sets it
     * before its publishing CAS, a pop clears it after its acquiring CAS.
     */
    private boolean listed;
    @SuppressWarnings("unused") // accessed through ANCHOR
    private volatile long anchor;

    Superblock(int index, long offset, int sizeClass, int blockSize, long superblockSize) {
        this.index = index;
        this.offset = offset;
        this.sizeClass = sizeClass;
        this.blockSize = blockSize;
        this.blockCount = (int) (superblockSize / blockSize);
        this.reciprocal = ((1L << 40) + blockSize - 1) / blockSize;
        this.freeBits = new long[(blockCount + 63) >>> 6];
        this.live = new byte[blockCount];
    }

    /** For {@code assert}: marks the descriptor listed; false if it already was. */
    boolean markListed() {
        boolean was = listed;
        listed = true;
        return !was;
    }

    /** For {@code assert}: marks the descriptor no longer listed; always true. */
    boolean unmarkListed() {
        listed = false;
        return true;
    }

    long anchor() {
        return anchor; // volatile read
    }

    boolean casAnchor(long expected, long value) {
        return ANCHOR.compareAndSet(this, expected, value);
    }

    void setAnchor(long value) {
        ANCHOR.setVolatile(this, value);
    }

    /**
     * Index of the block starting at {@code off}, or -1 if {@code off} is not a block start.
     * Divides by multiplying with {@link #reciprocal} = ceil(2^40 / blockSize): for offsets below
     * 2^23 (superblocks up to 8 MiB) the rounding error is below 2^-17, smaller than 1/blockSize
     * for every block size up to 16 KiB, so the quotient is exact.
     */
    int blockIndex(long off) {
        long rel = off - offset;
        int i = (int) ((rel * reciprocal) >>> 40);
        return ((long) i * blockSize == rel && i < blockCount) ? i : -1;
    }

    /** Index of the block at {@code off}, known to be a block start of this superblock. */
    int indexOf(long off) {
        return (int) (((off - offset) * reciprocal) >>> 40);
    }

    long blockOffset(int i) {
        return offset + (long) i * blockSize;
    }

    boolean isLive(int i) {
        // acquire/release: the byte publishes no data; any legitimate caller got the offset through
        // the user's own hand-over after markLive, which already orders the store
        return (byte) LIVE.getAcquire(live, i) != 0;
    }

    /** Marks a block taken from a cache as allocated. Only the cache holding it calls this. */
    void markLive(int i) {
        LIVE.setRelease(live, i, (byte) 1);
    }

    /** Ends a block's allocation; false if it was not allocated (double or foreign free). */
    boolean clearLive(int i) {
        return LIVE.compareAndSet(live, i, (byte) 1, (byte) 0);
    }

    /**
     * Puts blocks into the free pool. {@code offs[from..to)} are sorted offsets in this superblock;
     * one atomic OR per bitmap word they touch. The caller then adds {@code to-from} to the
     * anchor's count.
     */
    void addFree(long[] offs, int from, int to) {
        int word = -1;
        long mask = 0;
        for (int k = from; k < to; k++) {
            int i = blockIndex(offs[k]);
            int w = i >>> 6;
            if (w != word) {
                if (mask != 0) BITS.getAndBitwiseOr(freeBits, word, mask);
                word = w;
                mask = 0;
            }
            mask |= 1L << i;
        }
        if (mask != 0) BITS.getAndBitwiseOr(freeBits, word, mask);
    }

    /** Marks every block free (a fresh superblock whose blocks {@code [0, taken)} go to a cache). */
    void initFree(int taken) {
        // plain: the descriptor is private until install's directory release store and push CAS
        for (int i = taken; i < blockCount; i++) freeBits[i >>> 6] |= 1L << i;
    }

    /**
     * Takes {@code n} blocks out of the free pool into {@code dst[at..at+n)}. The caller has already
     * subtracted {@code n} from the anchor's count, so at least {@code n} bits are set (see the
     * class comment) and the scan terminates.
     */
    void takeFree(long[] dst, int at, int n) {
        int words = freeBits.length;
        int w = 0;
        int sweeps = 0; // counted only with assertions on (tests): a broken count fails, not hangs
        while (n > 0) {
            long v = (long) BITS.getVolatile(freeBits, w);
            if (v != 0) {
                long mask = 0;
                long rest = v;
                for (int k = 0; k < n && rest != 0; k++) {
                    long low = rest & -rest;
                    mask |= low;
                    rest ^= low;
                }
                long got = ((long) BITS.getAndBitwiseAnd(freeBits, w, ~mask)) & mask;
                while (got != 0) {
                    int bit = Long.numberOfTrailingZeros(got);
                    got &= got - 1;
                    dst[at++] = blockOffset((w << 6) + bit);
                    n--;
                }
            }
            if (++w == words) {
                w = 0;
                // Racing fills and flushes can leave a sweep short now and then; 2^24
                // sweeps means the bits are not there (a fill took more than the count gave it)
                assert ++sweeps < 1 << 24
                        : "superblock " + index + ": " + n + " free blocks promised by the count are not in the bitmap";
            }
        }
    }

    static {
        try {
            ANCHOR = MethodHandles.lookup().findVarHandle(Superblock.class, "anchor", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
