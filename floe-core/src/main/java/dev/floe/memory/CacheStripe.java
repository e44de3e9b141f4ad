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

    final long[][] blocks = new long[SizeClasses.COUNT][];
    final int[] count = new int[SizeClasses.COUNT];
    /** Blocks allocated minus blocks freed through this stripe, per class (statistics). */
    final long[] liveDelta = new long[SizeClasses.COUNT];
    /** Scratch for flushes, as large as the largest bin. */
    final long[] scratch;

    CacheStripe(int[] capacity) {
        int max = 0;
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            blocks[c] = new long[capacity[c]];
            max = Math.max(max, capacity[c]);
        }
        scratch = new long[max];
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
