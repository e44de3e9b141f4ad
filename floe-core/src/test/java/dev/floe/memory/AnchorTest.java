package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The anchor's documented bit layout ({@link Anchor}): state in bits 0-1, POPPED in bit 2, the
 * free count from bit 3. The release protocol ({@link SuperblockHeap}) relies on a popper's
 * {@code a | POPPED} changing the word, so that the flusher's CAS from the RELEASING value it set
 * fails and the flusher, the last holder, pushes the superblock for reuse. With the count
 * overlapping the POPPED bit (count shift 2), the mark is a no-op on odd counts (a superblock of
 * 48-byte blocks has 5,461): the flusher's CAS succeeds, neither side pushes it, and the released
 * superblock is lost for reuse. FloeAllocatorTest, MisuseTest and ConcurrentAllocatorStressTest
 * all passed with that mutation.
 */
class AnchorTest {
    private static final int[] COUNTS = {0, 1, 2, 3, 5461, 32768, Anchor.MAX_COUNT - 1, Anchor.MAX_COUNT};

    @Test
    void stateCountAndPoppedRoundTripWithoutDisturbingEachOther() {
        for (int state : new int[] {Anchor.FULL, Anchor.PARTIAL, Anchor.RELEASING, Anchor.EMPTY}) {
            for (int count : COUNTS) {
                long a = Anchor.of(state, count);
                assertEquals(state, Anchor.state(a), () -> "state of " + Long.toHexString(a));
                assertEquals(count, Anchor.count(a), () -> "count of " + Long.toHexString(a));
                assertFalse(Anchor.popped(a), () -> "a fresh anchor is not popped: " + Long.toHexString(a));
                long p = a | Anchor.POPPED;
                assertNotEquals(a, p, () -> "marking POPPED must change the word: " + Long.toHexString(a));
                assertTrue(Anchor.popped(p));
                assertEquals(state, Anchor.state(p), () -> "state of popped " + Long.toHexString(p));
            }
        }
    }

    @Test
    void theCountHoldsTheLargestSuperblock() {
        // 8 MiB of 8-byte blocks: 2^20 blocks, within the 21-bit count
        long blocks = (8L << 20) / SizeClasses.blockSize(0);
        assertTrue(blocks <= Anchor.MAX_COUNT);
        assertEquals(blocks, Anchor.count(Anchor.of(Anchor.PARTIAL, (int) blocks)));
    }
}
