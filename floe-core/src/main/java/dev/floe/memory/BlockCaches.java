package dev.floe.memory;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * The bounded caches in front of the {@link SuperblockHeap}: LRMalloc's thread caches, made safe
 * for virtual threads.
 *
 * <p>LRMalloc gives each thread its own cache. On the JVM that would strand blocks in caches of
 * threads that died (there is no thread-exit hook) and grow without bound with millions of
 * virtual threads. Floe instead keeps a fixed set of {@link CacheStripe}s (a power of two, four per
 * core) that a thread <em>claims for the duration of one call</em>: the stripe
 * is picked by hashing the thread id (so a platform thread keeps hitting the same warm stripe),
 * claimed with one CAS, used with plain accesses, and released with a release store. If the home
 * stripe is busy the thread probes the others; if all are busy it goes straight to the heap for a
 * single block, so no thread ever waits for another (lock-free).
 *
 * <p>Bounds: each stripe holds at most {@code capacity[c]} blocks of class {@code c}
 * ({@link #capacityOf}: 128 blocks or 64 KiB, whichever is fewer, but at least 16), so the total
 * cached memory is at most {@code stripes × Σ capacity[c] × blockSize(c)}: about 2.4 MiB per
 * stripe if every one of the 40 classes is in use, in practice a few bins. A bin's array is
 * created when a claim first needs it, so a stripe's heap footprint follows the classes in use
 * too. An empty bin is filled to half its capacity; a full bin flushes its older half (the other
 * half stays, warm, for the next allocations). The minimum of 16 matters for the large classes: with 4-block bins a 16 KiB
 * class went to the shared heap every other call and two threads contended there (measured on
 * a 16 B–16 KiB mix: 44–90 ns per pair per thread with 4-block bins, 35 ns with 16).
 */
final class BlockCaches {
    private final SuperblockHeap heap;
    private final CacheStripe[] stripes;
    private final int mask;
    private final SizeClassTable classes;
    private final int[] capacity;
    /** Live-block deltas of calls that found every stripe busy. */
    private final AtomicLongArray directLive;

    BlockCaches(SuperblockHeap heap, int stripeCount) {
        if (Integer.bitCount(stripeCount) != 1) throw new IllegalArgumentException("stripes: power of two");
        this.heap = heap;
        this.classes = heap.classes;
        this.capacity = new int[classes.count()];
        this.directLive = new AtomicLongArray(classes.count());
        for (int c = 0; c < capacity.length; c++) capacity[c] = capacityOf(classes.blockSize(c));
        this.stripes = new CacheStripe[stripeCount];
        for (int i = 0; i < stripeCount; i++) stripes[i] = new CacheStripe(capacity);
        this.mask = stripeCount - 1;
    }

    static int capacityOf(int blockSize) {
        return Math.max(16, Math.min(128, (64 << 10) / blockSize));
    }

    /**
     * Four stripes per core (at least 8, at most 64): with {@code t} running threads hashed onto
     * {@code k} stripes, two collide with probability about {@code t²/2k}; a collision makes the
     * later thread probe to a neighbour and the two then share cache lines. Measured with 2
     * threads on 2 cores: 4 stripes were 25% slower than thread-local caches, 8 within noise.
     */
    static int defaultStripes() {
        int n = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors() * 4 - 1)) << 1;
        return Math.min(64, Math.max(8, n));
    }

    private CacheStripe claim() {
        long id = Thread.currentThread().threadId();
        int h = (int) ((id * 0x9E37_79B9_7F4A_7C15L) >>> 40);
        for (int i = 0; i <= mask; i++) {
            CacheStripe s = stripes[(h + i) & mask];
            if (s.tryClaim()) return s;
        }
        return null;
    }

    /** A free block of class {@code c}, marked live. */
    long allocate(int c) {
        long off;
        CacheStripe s = claim();
        if (s == null) {
            long[] one = new long[1];
            heap.fill(c, one, 0, 1);
            directLive.incrementAndGet(c);
            off = one[0];
        } else {
            try {
                long[] bin = s.bin(c);
                int n = s.count(c);
                if (n == 0) n = heap.fill(c, bin, 0, (capacity[c] + 1) >>> 1);
                off = bin[--n];
                s.setCount(c, n);
                s.addLive(c, 1);
            } finally {
                s.unclaim();
            }
        }
        Superblock sb = heap.directory.get((int) (off >>> heap.superblockShift));
        sb.markLive(sb.indexOf(off));
        return off;
    }

    /** Takes back a block whose live byte the caller has just cleared. */
    void free(Superblock sb, long off) {
        CacheStripe s = claim();
        if (s == null) {
            freeDirect(sb, off);
            return;
        }
        try {
            put(s, sb.sizeClass, off);
        } finally {
            s.unclaim();
        }
    }

    /**
     * Takes back {@code offs[from..to)} under one stripe claim instead of one per block (a
     * retire list's drain frees hundreds at once). {@code release} validates each offset and
     * clears its live byte, as {@link FloeAllocator#free(long)} does, and returns its superblock,
     * or null for a large run, which it has freed itself. If it throws, the blocks before are
     * taken back and the stripe is released. Holding the claim meanwhile makes no one wait: other
     * calls probe another stripe, or go to the heap.
     */
    void freeAll(long[] offs, int from, int to, LongFunction<Superblock> release) {
        CacheStripe s = claim();
        try {
            for (int i = from; i < to; i++) {
                long off = offs[i];
                Superblock sb = release.apply(off);
                if (sb == null) continue;
                if (s != null) put(s, sb.sizeClass, off);
                else freeDirect(sb, off);
            }
        } finally {
            if (s != null) s.unclaim();
        }
    }

    /** Every stripe was busy: the block goes straight back to its superblock. */
    private void freeDirect(Superblock sb, long off) {
        heap.flush(new long[] {off}, 0, 1);
        directLive.decrementAndGet(sb.sizeClass);
    }

    /** Puts a freed block of class {@code c} into the claimed stripe's bin, flushing its older half if full. */
    private void put(CacheStripe s, int c, long off) {
        long[] bin = s.bin(c);
        int n = s.count(c);
        if (n == bin.length) {
            // The older half leaves the bin (count set) before the heap takes it: if the
            // flush failed, those blocks would be lost, never cached twice.
            int half = n >>> 1;
            long[] scratch = s.scratch();
            System.arraycopy(bin, 0, scratch, 0, half);
            System.arraycopy(bin, half, bin, 0, n - half);
            n -= half;
            s.setCount(c, n);
            heap.flush(scratch, 0, half);
        }
        bin[n] = off;
        s.setCount(c, n + 1);
        s.addLive(c, -1);
    }

    /**
     * Flushes every stripe completely, waiting for each stripe's current holder to finish its call.
     * The wait parks (with growing pauses) rather than spins: a virtual thread holding a stripe
     * can be unmounted inside its call (it may block on a monitor while committing a chunk), and
     * spinning virtual threads could then occupy every carrier so that the holder never runs.
     * An interrupted thread's park returns at once, so the wait takes the interrupt out of the
     * way and sets it again when the trim is done.
     */
    void trim() {
        boolean interrupted = false;
        try {
            for (CacheStripe s : stripes) {
                long pause = 1_000;
                while (!s.tryClaim()) {
                    if (Thread.interrupted()) interrupted = true; // else the park would not park
                    LockSupport.parkNanos(pause);
                    pause = Math.min(pause * 2, 1_000_000);
                }
                flushClaimed(s);
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * Flushes every stripe no other call holds right now, skipping busy ones: what an allocation
     * that ran out of budget does before its one retry, without waiting for anybody (so
     * allocation stays lock-free; a busy stripe's blocks are in use by an active call anyway).
     */
    void flushIdle() {
        for (CacheStripe s : stripes) {
            if (s.tryClaim()) flushClaimed(s);
        }
    }

    /** Gives every block cached in {@code s}, which the caller has claimed, back to the heap; unclaims it. */
    private void flushClaimed(CacheStripe s) {
        try {
            for (int c = 0; c < capacity.length; c++) {
                int n = s.count(c);
                if (n > 0) {
                    s.setCount(c, 0);
                    heap.flush(s.bin(c), 0, n); // n > 0: the bin exists
                }
            }
        } finally {
            s.unclaim();
        }
    }

    /** Live blocks of class {@code c} (a racy but tear-free sum; exact when quiescent). */
    long liveBlocks(int c) {
        long sum = directLive.get(c);
        for (CacheStripe s : stripes) sum += s.liveDelta(c);
        return sum;
    }

    long cachedBytes() {
        long sum = 0;
        for (CacheStripe s : stripes) {
            for (int c = 0; c < capacity.length; c++) sum += (long) s.countRacy(c) * classes.blockSize(c);
        }
        return sum;
    }

    /** Bins created so far over all stripes (tests; exact when quiescent). */
    int binsCreated() {
        int n = 0;
        for (CacheStripe s : stripes) {
            for (int c = 0; c < capacity.length; c++) if (s.hasBin(c)) n++;
        }
        return n;
    }
}
