package dev.floe.reclaim;

/**
 * The 8-byte header in front of every Nova slice, the source of truth for its state; one word
 * so that deletion is a single CAS.
 *
 * <pre>
 *  63                         37  36  35  34                              0
 * +-----------------------------+---+---+--------------------------------+
 * |        version (27 bits)    | D | A |     length in bytes (35 bits)  |
 * +-----------------------------+---+---+--------------------------------+
 * </pre>
 * Version 0 is never issued, so zeroed memory (fresh, or released with {@code madvise}) is never a
 * valid header (ARCHITECTURE.md invariant 2). The version and deleted bit sit at the same
 * positions as in {@link SafePointer}, so "does this header match this pointer" is one mask and
 * compare. {@code A} (attached run) marks a slice that owns a large allocator block: its offset
 * is the 8-byte word right after the slice's {@code length} data bytes (inside the block, outside
 * every view of the slice), and the block is freed when the slice is
 * ({@link Nova#allocateWithRun}). {@code A} and the length never change while the block holds
 * this incarnation.
 */
final class SliceHeader {
    static final long LENGTH_MASK = (1L << 35) - 1;
    /** The slice owns an attached run (see above). */
    static final long RUN = 1L << 35;
    static final long DELETED = SafePointer.DELETED;
    /** Version and deleted bit: the part a pointer must match. */
    static final long STATE_MASK = -SafePointer.DELETED;

    private SliceHeader() {}

    static long of(int version, long length) {
        return ((long) version << SafePointer.VERSION_SHIFT) | length;
    }

    /** Whether the slice of header {@code header} owns an attached run. */
    static boolean hasRun(long header) {
        return (header & RUN) != 0;
    }

    /** Bytes of the block after the header: the data, and the run word if there is one. */
    static long blockBytes(long header) {
        return length(header) + (hasRun(header) ? 8 : 0);
    }

    static long length(long header) {
        return header & LENGTH_MASK;
    }

    static boolean isDeleted(long header) {
        return (header & DELETED) != 0;
    }

    /** Whether {@code header} is the live header of the incarnation {@code ptr} refers to. */
    static boolean matches(long header, long ptr) {
        return (header & STATE_MASK) == (ptr & ~SafePointer.REF_MASK) && (ptr & DELETED) == 0;
    }

    /** The state bits (version, deleted clear) of a live header for undeleted pointer {@code ptr}. */
    static long expectedState(long ptr) {
        return ptr & ~SafePointer.REF_MASK;
    }

    /** Whether {@code header} shows the live incarnation whose {@link #expectedState} is {@code expected}. */
    static boolean liveAs(long header, long expected) {
        return (header & STATE_MASK) == expected;
    }
}
