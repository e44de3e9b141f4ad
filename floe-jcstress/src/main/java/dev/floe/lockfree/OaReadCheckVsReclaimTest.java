package dev.floe.lockfree;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Optimistic Access, reader side (the LRMalloc/OA paper, section 3.1: a read is used only after
 * the warning check that follows it): {@link HarrisMichaelCore#get}'s loads of a node's words, then
 * the warning check, against a reclamation pass that frees that node and a reuse of its block.
 *
 * <p>The list holds one node, key {@link OaFixture#KEY} and value {@link OaFixture#VALUE}. The
 * reader runs {@code get(KEY)}. The reclaimer removes the key (with a limbo list of one node the
 * operation's end runs a reclamation pass: warning, fence, hazard scan, free), then allocates a
 * node-sized block — usually the very block just freed — and writes key {@code KEY} with value
 * {@link OaFixture#REUSED} into it, unmarked. A reader that loaded the node's address before the
 * unlink and its words after the reuse sees a well-formed node with the searched key; only the
 * warning check after those loads can tell it that the block was freed. Returning
 * {@code REUSED}, a value never inserted, is accepting a stale read.
 *
 * <p>Why it cannot happen: the reclaimer sends the warning (OA-VER: a CAS on the clock; OA-BIT: a
 * store to every warning bit, then a full fence) before it frees the block, and the reuse writes
 * come after the free in its program order; the reader's loads come before its warning load
 * ({@code loadLoadFence}). A reader that saw a reuse write therefore sees the warning and restarts
 * (and then finds the list empty).
 *
 * <p>Results: r1 = what {@code get} returned (0 absent, 1 {@code VALUE}, 2 {@code REUSED}, 3
 * anything else), r2 = 1 if the reuse got the freed node's block (the race this test is about can
 * only happen then).
 */
public class OaReadCheckVsReclaimTest {

    /**
     * The shared body: a list per state on a scheme shared by every state of the VM. Its outcomes
     * are both schemes' (jcstress reads them through {@code @Inherited}); the actors must stand in
     * each test class, since jcstress generates a test from its own methods.
     */
    @Outcome(id = {"0, [01]", "1, [01]"}, expect = ACCEPTABLE, desc = "absent (after the remove), or the node's own value")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "get accepted the reused block's value: a stale read passed the warning check")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    abstract static class Body {
        private final HarrisMichaelList list;
        private final long node;
        private long reused;

        Body(Reclamation rec) {
            list = new HarrisMichaelList(rec);
            if (!list.insert(OaFixture.KEY, OaFixture.VALUE)) throw new AssertionError("insert failed");
            node = OaFixture.REGION.getLongAcquire(list.heads);
        }

        void reader(II_Result r) {
            long v = list.get(OaFixture.KEY, -1);
            r.r1 = v == -1 ? 0 : v == OaFixture.VALUE ? 1 : v == OaFixture.REUSED ? 2 : 3;
        }

        void reclaimer(II_Result r) {
            if (!list.remove(OaFixture.KEY)) throw new AssertionError("remove failed");
            // the remove's end ran a pass over the limbo list of one node: warned, then freed it
            long b = OaFixture.reuseNodeBlock();
            reused = b;
            r.r2 = b == node ? 1 : 0;
        }

        void cleanUp() {
            list.close();
            OaFixture.ALLOC.free(reused);
        }
    }

    @JCStressTest
    @Description("OA-VER: get's loads, then the clock check, vs a pass that frees the node and a reuse of its block")
    @State
    public static class Ver extends Body {
        static final Reclamation REC = Reclamation.oaVer(OaFixture.ALLOC, 1);

        public Ver() {
            super(REC);
        }

        @Actor
        public void read(II_Result r) {
            reader(r);
        }

        @Actor
        public void removeAndReuse(II_Result r) {
            reclaimer(r);
        }

        @Arbiter
        public void check(II_Result r) {
            cleanUp();
        }
    }

    @JCStressTest
    @Description("OA-BIT: get's loads, then the warning-bit check, vs a pass that frees the node and a reuse of its block")
    @State
    public static class Bit extends Body {
        static final Reclamation REC = Reclamation.oaBit(OaFixture.ALLOC, 1);

        public Bit() {
            super(REC);
        }

        @Actor
        public void read(II_Result r) {
            reader(r);
        }

        @Actor
        public void removeAndReuse(II_Result r) {
            reclaimer(r);
        }

        @Arbiter
        public void check(II_Result r) {
            cleanUp();
        }
    }
}
