package dev.floe.handle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One superblock of the handle area ({@link AnchorageHeap}; ANCHORAGE's sub-heap): a run of
 * {@code chunkSize} bytes from the allocator cut into blocks of one size class. Which blocks are
 * used, and which handle id owns each (so the defragmenter can find the entry to switch), is kept
 * on heap; the blocks themselves hold only object bytes. Lock-free: application threads and the
 * defragmenter change a chunk only with CASes, so neither ever waits for the other.
 *
 * <h2>State word</h2>
 * <pre>
 *  63 RELEASED   62 EVACUATING   61 .. 32 unused   31 .. 0 live: blocks reserved or used
 * </pre>
 * The state word is the truth about whether a block may be taken here: {@link #reserve} adds one
 * to {@code live} with a CAS that fails when the chunk is full, evacuating or released, and a
 * free that takes {@code live} to 0 sets RELEASED in the same CAS. So once RELEASED is set no
 * block is reserved or used, and no reservation can follow: the chunk can go back to the
 * allocator. Every reservation is followed by exactly one {@link #claim} of a bitmap bit, and a
 * reservation guarantees a clear bit exists (live counts reservations, and bits are cleared before
 * {@code live} goes down).
 *
 * <h2>Bitmap and owners</h2>
 * {@code used}: one bit per block, set by {@link #claim} and cleared by {@link #clear}, each with
 * a CAS (atomic bitwise operation). {@code owner[i]} is the handle id the block was last claimed
 * for, written with a plain store after the claim and never cleared; the defragmenter reads it
 * racily, and a stale or not-yet-written owner only makes that one move fail its validation
 * ({@link HandleSpace#relocate} moves an object only if the owner's entry names this block).
 */
final class AreaChunk {
    private static final long RELEASED = 1L << 63, EVACUATING = 1L << 62, LIVE = 0xFFFF_FFFFL;
    private static final VarHandle STATE, WORD = MethodHandles.arrayElementVarHandle(long[].class);

    final long offset;
    final int sizeClass;
    final int blockSize;
    final int blockCount;
    /** Tells apart chunks carved at the same offset one after another (for ordered sets). */
    final long serial;
    private final long[] used;
    private final int[] owner;
    private volatile long state;
    /** Bitmap word where the last claim succeeded (a racy hint: any value is correct). */
    private int hint;

    /** A chunk with its first block already reserved (the carver's own allocation). */
    AreaChunk(long offset, int sizeClass, int blockSize, long chunkSize, long serial) {
        this.offset = offset;
        this.serial = serial;
        this.sizeClass = sizeClass;
        this.blockSize = blockSize;
        this.blockCount = (int) (chunkSize / blockSize);
        this.used = new long[(blockCount + 63) >>> 6];
        this.owner = new int[blockCount];
        this.state = 1;
    }

    int live() {
        return (int) (state & LIVE);
    }

    boolean isFull() {
        return live() == blockCount;
    }

    boolean isReleased() {
        return (state & RELEASED) != 0;
    }

    boolean isEvacuating() {
        return (state & EVACUATING) != 0;
    }

    /** Whether allocations may land here now (not full, evacuating or released). */
    boolean acceptsAllocations() {
        long s = state;
        return (s & (RELEASED | EVACUATING)) == 0 && (s & LIVE) < blockCount;
    }

    /** Reserves one block; false if the chunk is full, evacuating or released. */
    boolean reserve() {
        while (true) {
            long s = state;
            if ((s & (RELEASED | EVACUATING)) != 0 || (s & LIVE) >= blockCount) return false;
            if (STATE.compareAndSet(this, s, s + 1)) return true;
        }
    }

    /** Claims a clear block for handle {@code id} after a successful {@link #reserve}; its offset. */
    long claim(int id) {
        int words = used.length, w = hint;
        while (true) {
            long bits = (long) WORD.getVolatile(used, w);
            int bit = Long.numberOfTrailingZeros(~bits);
            int i = (w << 6) + bit;
            if (bits == -1L || i >= blockCount) { // full word (or the tail past the last block)
                w = w + 1 == words ? 0 : w + 1;
                continue;
            }
            if (WORD.compareAndSet(used, w, bits, bits | (1L << bit))) {
                owner[i] = id;
                hint = w;
                return offset + (long) i * blockSize;
            }
        }
    }

    /** {@link #clear} results: nothing to do; the chunk was full and takes allocations again; the chunk emptied (now RELEASED). */
    static final int CLEARED = 0, REOPENED = 1, EMPTIED = 2;

    /**
     * Clears the used bit of the block at {@code off} and gives back its reservation; returns
     * {@link #EMPTIED} if that emptied the chunk (it is then RELEASED: the caller returns it to
     * the allocator), {@link #REOPENED} if the chunk was full and is not evacuating (the caller
     * lists it for allocations again), else {@link #CLEARED}. Throws if {@code off} is not a used
     * block start of this chunk.
     */
    int clear(long off) {
        int i = blockIndex(off);
        if (i < 0 || ((long) WORD.getAndBitwiseAnd(used, i >>> 6, ~(1L << i)) & (1L << i)) == 0) {
            throw new IllegalArgumentException("offset " + off + " is not an allocated block");
        }
        if ((i >>> 6) < hint) hint = i >>> 6;
        while (true) {
            long s = state;
            boolean forced = (s & RELEASED) != 0; // released by close: nothing more to give back
            long n = (s & LIVE) == 1 ? (s - 1) | RELEASED : s - 1;
            if (STATE.compareAndSet(this, s, n)) {
                if (forced) return CLEARED;
                if ((n & RELEASED) != 0) return EMPTIED;
                return (s & LIVE) == blockCount && (s & EVACUATING) == 0 ? REOPENED : CLEARED;
            }
        }
    }

    /** Whether {@code off} is the start of a block of this chunk that is claimed now. */
    boolean isUsedBlock(long off) {
        int i = blockIndex(off);
        return i >= 0 && ((long) WORD.getVolatile(used, i >>> 6) & (1L << i)) != 0;
    }

    /** The block index of {@code off} if it is a block start here, else -1. */
    private int blockIndex(long off) {
        long rel = off - offset;
        if (rel < 0 || rel % blockSize != 0 || rel / blockSize >= blockCount) return -1;
        return (int) (rel / blockSize);
    }

    /** Marks the chunk evacuating (no new reservations); false if it is released or already evacuating. */
    boolean startEvacuation() {
        while (true) {
            long s = state;
            if ((s & (RELEASED | EVACUATING)) != 0) return false;
            if (STATE.compareAndSet(this, s, s | EVACUATING)) return true;
        }
    }

    /** Lets reservations in again. */
    void endEvacuation() {
        while (true) {
            long s = state;
            if (STATE.compareAndSet(this, s, s & ~EVACUATING)) return;
        }
    }

    /** Marks the chunk released whatever it holds (the heap is closing). False if it already was. */
    boolean forceRelease() {
        while (true) {
            long s = state;
            if ((s & RELEASED) != 0) return false;
            if (STATE.compareAndSet(this, s, s | RELEASED)) return true;
        }
    }

    /**
     * Copies the used blocks' offsets and owner ids into {@code offs}/{@code ids} (each at least
     * {@link #blockCount} long); returns how many. A racy snapshot: blocks claimed or cleared
     * meanwhile may be missing or stale, which the mover's validation tolerates.
     */
    int usedBlocks(long[] offs, int[] ids) {
        int n = 0;
        for (int w = 0; w < used.length; w++) {
            long bits = (long) WORD.getVolatile(used, w);
            while (bits != 0) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                offs[n] = offset + (long) i * blockSize;
                ids[n++] = owner[i];
            }
        }
        return n;
    }

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AreaChunk.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
