package dev.floe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding before the hot fields so that two stripes never share a cache line. */
abstract class CacheStripePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

/** The claim word, alone on its cache line. */
abstract class CacheStripeOwner extends CacheStripePad0 {
    volatile int owner;
}

abstract class CacheStripePad1 extends CacheStripeOwner {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/**
 * One cache stripe: for every size class a bounded LIFO of free blocks (LRMalloc's thread cache
 * bins), plus per-class counters of blocks allocated through this stripe.
 *
 * <p>A thread uses a stripe only between a successful {@link #tryClaim} (CAS 0→1 on
 * {@code owner}, which acquires everything the previous holder wrote) and {@link #unclaim} (a
 * release store of 0, which publishes what it wrote). Inside a claim the stripe's arrays are
 * accessed with plain loads and stores. So stripes need no thread-exit hook and strand nothing:
 * the blocks they hold belong to no thread, and {@link FloeAllocator#trim} can flush them all.
 */
final class CacheStripe extends CacheStripePad1 {
    private static final VarHandle OWNER;
    private static final VarHandle COUNTERS = MethodHandles.arrayElementVarHandle(long[].class);

    /**
     * Bin {@code c}'s blocks, created by the first claim that needs the bin ({@link #bin}): a
     * stripe costs about 1 KiB of heap per size class in use instead of 26 KiB for all 40 up
     * front. Plain fields, read and written only inside a claim.
     */
    private final long[][] blocks;
    private final int[] capacity;
    /**
     * The stripe's hot counters in one array, padded with a cache line at each end so that no
     * other object the GC places beside it shares their lines:
     * {@code [pad 8][count c0..cN-1][liveDelta c0..cN-1][pad 8]} for the allocator's N classes.
     * {@code count} is the number of blocks in bin {@code c}; {@code liveDelta} is blocks
     * allocated minus blocks freed through this stripe (statistics).
     */
    private final long[] counters;
    private static final int PAD = 8;
    /** Index of {@code liveDelta c0}: {@code PAD + N}. */
    private final int live;
    /** Scratch for flushing half of a full bin (as large as the largest bin), created by the first such flush. */
    private long[] scratch;

    /**
     * A stripe for {@code capacity.length} size classes whose bin {@code c} will hold at most
     * {@code capacity[c]} blocks (the array is shared, never written).
     */
    CacheStripe(int[] capacity) {
        this.capacity = capacity;
        this.blocks = new long[capacity.length][];
        this.counters = new long[PAD + 2 * capacity.length + PAD];
        this.live = PAD + capacity.length;
    }

    /**
     * Bin {@code c}, created empty on first use. Only inside a claim: the claim's CAS acquires what
     * the previous holder wrote and {@link #unclaim}'s release store publishes the new array, so a
     * later holder sees it fully built.
     */
    long[] bin(int c) {
        long[] b = blocks[c];
        if (b == null) blocks[c] = b = new long[capacity[c]];
        return b;
    }

    /** Whether bin {@code c} was ever used (tests; only inside a claim or when quiescent). */
    boolean hasBin(int c) {
        return blocks[c] != null;
    }

    /** Scratch for a flush, created on first use. Only inside a claim. */
    long[] scratch() {
        long[] s = scratch;
        if (s == null) {
            int max = 0;
            for (int n : capacity) max = Math.max(max, n);
            scratch = s = new long[max];
        }
        return s;
    }

    int count(int c) {
        return (int) counters[PAD + c];
    }

    void setCount(int c, int n) {
        counters[PAD + c] = n;
    }

    void addLive(int c, int delta) {
        counters[live + c] += delta;
    }

    /** Read by statistics without a claim: a racy but tear-free (opaque) read. */
    long liveDelta(int c) {
        return (long) COUNTERS.getOpaque(counters, live + c);
    }

    /** Read by statistics without a claim (opaque). */
    int countRacy(int c) {
        return (int) (long) COUNTERS.getOpaque(counters, PAD + c);
    }

    boolean tryClaim() {
        return owner == 0 && OWNER.compareAndSet(this, 0, 1);
    }

    void unclaim() {
        OWNER.setRelease(this, 0);
    }

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(CacheStripeOwner.class, "owner", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
