package dev.floe.memory;

/**
 * Packing of a superblock descriptor's anchor: the one word every state change of a superblock
 * CASes (LRMalloc's anchor).
 *
 * <pre>
 *  63                                 24 23            3  2   1..0
 * +-------------------------------------+---------------+---+-------+
 * |                unused (0)           |  free count   | P | state |
 * +-------------------------------------+---------------+---+-------+
 *   state  FULL=0, PARTIAL=1, RELEASING=2, EMPTY=3
 *   P      "popped": set on a RELEASING superblock by a thread that took it off the partial
 *          stack while it was being released (see {@link SuperblockHeap})
 *   count  blocks in the superblock's free pool (21 bits: superblocks of up to 2^21 blocks)
 * </pre>
 *
 * <b>ABA.</b> LRMalloc's anchor holds the head of the superblock's free list, which needs a tag.
 * Floe keeps free blocks in a bitmap instead (so it never writes into freed blocks, see
 * {@link Superblock}), and the anchor holds only values — a count and a state — whose meaning does
 * not depend on history: a CAS that succeeds on a value seen before acts on exactly the state it
 * expects. So no tag is needed; the partial-stack head, which does hold a reference, is tagged
 * ({@link DescriptorStack}).
 */
final class Anchor {
    static final int FULL = 0;
    static final int PARTIAL = 1;
    static final int RELEASING = 2;
    static final int EMPTY = 3;
    static final long POPPED = 1L << 2;
    static final int MAX_COUNT = (1 << 21) - 1;
    private static final int COUNT_SHIFT = 3;

    private Anchor() {}

    static long of(int state, int count) {
        return ((long) count << COUNT_SHIFT) | state;
    }

    static int state(long anchor) {
        return (int) (anchor & 3);
    }

    static int count(long anchor) {
        return (int) (anchor >>> COUNT_SHIFT);
    }

    static boolean popped(long anchor) {
        return (anchor & POPPED) != 0;
    }
}
