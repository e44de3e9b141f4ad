package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code find}'s unlink of a marked node is a modifying step: a warning may come after the walk's
 * last check, and the predecessor may be freed and reused before the CAS, so the CAS must follow
 * a {@code protect} (hazard pointers, then one more warning check). A scheme without
 * reclamation plays that warning in lockstep: right after the check that validated a marked
 * node, it removes the node's predecessor as another thread would and reuses its block for a
 * node being initialised (whose next word happens to hold the same successor, as an ABA needs),
 * then reports the warning to every later check until the walk acknowledges it. Without the
 * protect, the unlink CAS lands in the reused block and succeeds: the marked node is retired
 * while still linked, and retired a second time by the walk that later unlinks it for real (in a
 * reclaiming scheme, a free of a reachable node and a double free). The stress tests never met
 * this window.
 */
class FindUnlinkProtectionTest {

    /** The {@link #arm}ed check runs an action and from then on reports a warning until acknowledged. */
    static final class WarnAfterCheck extends LockstepScheme {
        private int checksLeft = -1;
        private Runnable action;
        private boolean pending;

        WarnAfterCheck(FloeAllocator alloc) {
            super(alloc);
        }

        /** The {@code n}-th warning check from now passes, then runs {@code action}, after which a warning is pending. */
        void arm(int n, Runnable action) {
            this.checksLeft = n;
            this.action = action;
        }

        @Override
        boolean warned(Participant p) {
            if (checksLeft > 0 && --checksLeft == 0) {
                action.run();
                pending = true;
                return false; // the check itself came before the warning
            }
            return pending;
        }

        @Override
        void acknowledge(Participant p) {
            pending = false;
        }

        @Override
        boolean protect(Participant p, long a, long b, long c) {
            return !pending;
        }
    }

    @Test
    void aWarningAfterTheWalksLastCheckStopsTheUnlinkOfAMarkedNode() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            WarnAfterCheck rec = new WarnAfterCheck(alloc);
            Region r = alloc.region();
            HarrisMichaelList list = new HarrisMichaelList(rec);
            for (long k : new long[] {1, 2, 4}) assertTrue(list.insert(k, k));
            long one = r.getLongAcquire(list.heads);
            long two = r.getLongAcquire(one + HarrisMichaelCore.NEXT);
            long four = r.getLongAcquire(two + HarrisMichaelCore.NEXT);
            assertTrue(r.compareAndSetLong(two + HarrisMichaelCore.NEXT, four, four | HarrisMichaelCore.MARK),
                    "2 is marked, as by a remove that has not unlinked it yet");

            // insert(3) checks after node 1, then after node 2 (marked); right after that second check:
            rec.arm(2, () -> {
                // another thread removes 1 ...
                assertTrue(r.compareAndSetLong(one + HarrisMichaelCore.NEXT, two, two | HarrisMichaelCore.MARK));
                assertTrue(r.compareAndSetLong(list.heads, one, two));
                // ... its block is freed and taken by an insert that is initialising it
                r.setLongPlain(one + HarrisMichaelCore.KEY, 0);
                r.setLongPlain(one + HarrisMichaelCore.STAMP, 3);
                r.setLongPlain(one + HarrisMichaelCore.VALUE, 0);
                r.setLongPlain(one + HarrisMichaelCore.NEXT, two);
            });
            assertTrue(list.insert(3, 3));

            List<Long> keys = new ArrayList<>();
            for (long cur = r.getLongAcquire(list.heads); cur != 0; ) {
                assertTrue(!rec.retired.contains(cur), "a retired node is still linked");
                long next = r.getLongAcquire(cur + HarrisMichaelCore.NEXT);
                if ((next & HarrisMichaelCore.MARK) == 0) keys.add(r.getLongPlain(cur + HarrisMichaelCore.KEY));
                cur = next & ~HarrisMichaelCore.MARK;
            }
            assertEquals(List.of(3L, 4L), keys, "the insert's node is in the list");
            assertEquals(List.of(two), rec.retired, "2 is retired once, after it was unlinked");
            assertEquals(3, list.get(3, -1));
            list.close();
        }
    }
}
