package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The incarnation check itself can fire. {@link LockFreeStressTest} and
 * {@link BrokenReclamationIsDetectedTest} count on {@link LockFreeLongMap#incarnationMismatches}
 * to report a CAS that acted on a node freed and reused between the walk and the CAS; a stress
 * run of a correct scheme always reports zero, so only a deterministic reuse shows that the
 * counter counts. Here a scheme without reclamation rewrites the stamp of the node a protect is
 * about to cover (what a reuse of that block would do: a new stamp, the words otherwise as the
 * walk saw them), and the CAS that follows must be counted.
 */
class IncarnationCheckTest {

    /** The first protect after {@link #arm} rewrites the stamp of one protected node. */
    static final class ReuseOnProtect extends LockstepScheme {
        int armed = -1; // which protect argument (0: a, 1: b) gets a new incarnation; -1: none

        ReuseOnProtect(FloeAllocator alloc) {
            super(alloc);
        }

        void arm(int which) {
            armed = which;
        }

        @Override
        boolean protect(Participant p, long a, long b, long c) {
            long node = armed == 0 ? a : armed == 1 ? b : 0;
            if (node != 0) {
                long stamp = region.getLongPlain(node + HarrisMichaelCore.STAMP);
                region.setLongPlain(node + HarrisMichaelCore.STAMP, stamp ^ 2); // stamps are odd: still a stamp
                armed = -1;
            }
            return true;
        }
    }

    @Test
    void aMarkingCasOnANodeOfAnotherIncarnationIsCounted() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            ReuseOnProtect rec = new ReuseOnProtect(alloc);
            HarrisMichaelList list = new HarrisMichaelList(rec);
            for (long k = 1; k <= 3; k++) assertTrue(list.insert(k, k));
            assertEquals(0, list.incarnationMismatches(), "nothing was reused yet");
            rec.arm(1); // remove(2) protects (1, 2, 3): node 2 is the one it marks
            assertTrue(list.remove(2));
            assertEquals(1, list.incarnationMismatches(),
                    "the mark CAS acted on a node whose stamp changed after the walk read it");
            assertFalse(list.contains(2));
        }
    }

    @Test
    void aLinkingCasAfterANodeOfAnotherIncarnationIsCounted() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            ReuseOnProtect rec = new ReuseOnProtect(alloc);
            HarrisMichaelList list = new HarrisMichaelList(rec);
            assertTrue(list.insert(1, 1));
            assertTrue(list.insert(3, 3));
            rec.arm(0); // insert(2) protects (1, 3): it links after node 1
            assertTrue(list.insert(2, 2));
            assertEquals(1, list.incarnationMismatches(),
                    "the link CAS went through a predecessor whose stamp changed after the walk read it");
            assertTrue(list.contains(2));
        }
    }
}
