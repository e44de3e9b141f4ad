package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OA-VER's clock in lockstep, driven by hand through the scheme's protocol so that each
 * interleaving is exact (the stress tests meet neither case).
 *
 * <p>Piggy-backing (the paper's Algorithm 2, threshold X): a limbo list at half capacity is
 * reclaimed early only when a warning someone else sent covers it; it never sends one of its own
 * before it is full.
 *
 * <p>The retire time: the case for which Floe departs from the paper's Algorithm 2 ({@link OaVerReclamation}, "Retire times"). The paper stamps a retire with the
 * retirer's LocalClock; a clock increment the retirer has not acknowledged may fall between its
 * last warning check (the {@code protect} before its CASes) and its unlink, and a reader that
 * acknowledged that increment may still hold the node. Stamped with the LocalClock, the node's
 * list would piggy-back on that increment and be freed with no warning for that reader. The
 * steps of a remove are driven through the scheme's protocol by hand, so the interleaving is
 * exact; with the paper's stamp, the reader's check stays silent.
 */
class OaVerClockTest {

    @Test
    void aHalfFullListWaitsForAWarningItNeedNotSend() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 4);
            try (HarrisMichaelList list = new HarrisMichaelList(rec)) {
                for (long k = 1; k <= 8; k++) assertTrue(list.insert(k, k));
                assertTrue(list.remove(1));
                assertTrue(list.remove(2)); // half full, no warning since: it waits
                assertEquals(0, rec.stats().reclaims(), "a pass before the list was full: " + rec.stats());
                assertEquals(0, rec.stats().warnings());

                boolean[] removed = new boolean[4];
                Thread.ofPlatform().start(() -> { // fills its own list: a pass with a warning
                    for (int i = 0; i < 4; i++) removed[i] = list.remove(3 + i);
                }).join();
                for (boolean r : removed) assertTrue(r);
                assertEquals(1, rec.stats().warnings());

                assertTrue(list.insert(100, 100)); // the half-full list rides on that warning
                Reclamation.Stats s = rec.stats();
                assertEquals(1, s.warnings(), "the early pass sent a warning of its own: " + s);
                assertEquals(2, s.reclaims());
                assertEquals(6, s.freed());
                assertEquals(0, s.inLimbo());
            }
        }
    }

    @Test
    void aWarningTheRetirerHadNotSeenDoesNotCoverItsUnlink() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 1); // every full list is a pass
            HarrisMichaelList list = new HarrisMichaelList(rec);
            for (long k = 1; k <= 4; k++) assertTrue(list.insert(k, k));
            Region r = alloc.region();
            long one = r.getLongAcquire(list.heads);
            long two = r.getLongAcquire(one + HarrisMichaelCore.NEXT);
            long three = r.getLongAcquire(two + HarrisMichaelCore.NEXT);
            assertEquals(2, r.getLongPlain(two + HarrisMichaelCore.KEY));

            // The retirer: a remove of 2 that walked and protected (1, 2, 3) with no warning.
            Participant retirer = rec.enter();
            assertTrue(rec.protect(retirer, one, two, three));

            // Meanwhile another thread removes 4; its pass advances the clock (a warning).
            boolean[] removed = new boolean[1];
            Thread.ofPlatform().start(() -> removed[0] = list.remove(4)).join();
            assertTrue(removed[0]);

            // A reader that began after that warning reaches node 2 (still linked).
            long token = rec.enterRead();
            assertEquals(2, r.getLongPlain(two + HarrisMichaelCore.KEY));
            assertTrue(!rec.readWarned(token), "nothing was freed since the reader began");

            // The retirer's CASes (still protected), its retire and its pass, which frees node 2.
            long freedBefore = rec.stats().freed();
            assertTrue(r.compareAndSetLong(two + HarrisMichaelCore.NEXT, three, three | HarrisMichaelCore.MARK));
            assertTrue(r.compareAndSetLong(one + HarrisMichaelCore.NEXT, two, three));
            rec.unprotect(retirer);
            rec.retire(retirer, two);
            rec.exit(retirer);
            assertEquals(freedBefore + 1, rec.stats().freed(), "the pass freed node 2");

            assertTrue(rec.readWarned(token),
                    "node 2 was freed while a reader held it, and that reader was not warned");
            rec.exitRead(token);
            list.close();
        }
    }
}
