package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remove whose unlinking CAS fails (the predecessor got a new successor between the mark and
 * the unlink) must still unlink and retire its node before it returns, through a {@code find}:
 * otherwise the marked node stays linked until some later walk happens to pass it, unfreed. The
 * stress tests do not see the difference (their accounting allows a few KiB of slack, and a
 * later walk usually cleans up), so here a scheme without reclamation links a node in front of
 * the one being removed at the exact moment, as a concurrent insert would: from the
 * {@code protect} that precedes the mark.
 */
class RemoveUnlinkTest {

    /** The first protect after {@link #arm} links {@code inserted} after its first node. */
    static final class InsertOnProtect extends LockstepScheme {
        private long inserted;

        InsertOnProtect(FloeAllocator alloc) {
            super(alloc);
        }

        /** The next protect links {@code node} between its first and second argument. */
        void arm(long node) {
            inserted = node;
        }

        @Override
        boolean protect(Participant p, long a, long b, long c) {
            if (inserted != 0) {
                region.setLongPlain(inserted + HarrisMichaelCore.NEXT, b);
                assertTrue(region.compareAndSetLong(a + HarrisMichaelCore.NEXT, b, inserted));
                inserted = 0;
            }
            return true;
        }
    }

    @Test
    void aRemoveWhoseUnlinkingCasFailsStillUnlinksAndRetiresItsNode() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            InsertOnProtect rec = new InsertOnProtect(alloc);
            Region r = alloc.region();
            HarrisMichaelList list = new HarrisMichaelList(rec);
            for (long k : new long[] {1, 3, 5}) assertTrue(list.insert(k, k));
            long one = r.getLongAcquire(list.heads);
            long three = r.getLongAcquire(one + HarrisMichaelCore.NEXT);
            long two = alloc.allocate(HarrisMichaelCore.NODE_BYTES); // what a concurrent insert(2, 2) links
            r.setLongPlain(two + HarrisMichaelCore.KEY, 2);
            r.setLongPlain(two + HarrisMichaelCore.STAMP, 1);
            r.setLongPlain(two + HarrisMichaelCore.VALUE, 2);

            rec.arm(two); // remove(3) protects (1, 3, 5), marks 3, then its unlink of 3 after 1 fails
            assertTrue(list.remove(3));

            assertEquals(List.of(three), rec.retired, "the removed node was unlinked and retired");
            for (long cur = r.getLongAcquire(list.heads); cur != 0; ) {
                long next = r.getLongAcquire(cur + HarrisMichaelCore.NEXT);
                assertEquals(0, next & HarrisMichaelCore.MARK,
                        "node " + r.getLongPlain(cur + HarrisMichaelCore.KEY) + " is marked but still linked");
                cur = next;
            }
            assertFalse(list.contains(3));
            assertEquals(3, list.size());
            assertEquals(2, list.get(2, -1));
            list.close();
        }
    }
}
