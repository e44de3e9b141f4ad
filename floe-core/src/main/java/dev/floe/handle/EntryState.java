package dev.floe.handle;

/**
 * The state word of a handle-table entry (the first of its two words; see {@link HandleTable}).
 *
 * <h2>Bit layout</h2>
 * <pre>
 *  63                 42   41     40    39                                   0
 * +---------------------+------+--------+--------------------------------------+
 * |  change count (22)  | FREE | MOVING |   offset of the object (40 bits)     |
 * +---------------------+------+--------+--------------------------------------+
 * </pre>
 * <ul>
 *   <li><b>offset</b>: where the object's bytes are, in the allocator's region (regions up to
 *       1 TiB). A freed entry keeps the offset of the object it had, so the deferred free knows
 *       which block to give back.</li>
 *   <li><b>MOVING</b>: the defragmenter has marked the object for relocation (ALASKA section 7's
 *       "invalid" mark). Readers ignore it; a pinner clears it, which cancels the move.</li>
 *   <li><b>FREE</b>: the entry names no object.</li>
 *   <li><b>change count</b>: incremented by every change of the word, so a reader that finds the
 *       same word before and after its read knows nothing happened in between (no ABA). It wraps
 *       after 2^22 changes of one entry; an ABA would need a reader stalled inside one read for
 *       exactly a multiple of 4,194,304 moves or reuses of that one object.</li>
 * </ul>
 */
final class EntryState {
    static final int OFFSET_BITS = 40;
    static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    static final long MOVING = 1L << 40;
    static final long FREE = 1L << 41;
    private static final int COUNT_SHIFT = 42;
    private static final long ONE = 1L << COUNT_SHIFT;
    private static final long FLAGS_AND_OFFSET = ONE - 1;

    /** The state of a fresh entry: free, no object, count 0. */
    static final long INITIAL = FREE;

    private EntryState() {}

    static long offset(long s) {
        return s & OFFSET_MASK;
    }

    static boolean isFree(long s) {
        return (s & FREE) != 0;
    }

    static boolean isMoving(long s) {
        return (s & MOVING) != 0;
    }

    /** The next change of {@code s}: same count + 1, new flags and offset. */
    private static long next(long s, long flagsAndOffset) {
        return ((s & ~FLAGS_AND_OFFSET) + ONE) | flagsAndOffset;
    }

    /** {@code s} (an entry in any state) now naming a live object at {@code offset}. */
    static long live(long s, long offset) {
        return next(s, offset);
    }

    /** {@code s} (live, not moving) marked for relocation. */
    static long moving(long s) {
        return next(s, offset(s) | MOVING);
    }

    /** {@code s} (live) with any move mark cleared: the move is cancelled, the object stays. */
    static long settled(long s) {
        return next(s, offset(s));
    }

    /** {@code s} (live) freed, keeping its offset (any move is cancelled). */
    static long freed(long s) {
        return next(s, offset(s) | FREE);
    }
}
