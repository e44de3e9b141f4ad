package dev.floe.lockfree;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Optimistic Access, writer side (the LRMalloc/OA paper, section 3.1 and Algorithm 3): a modifying
 * step publishes a hazard pointer on the node it will CAS and then checks the warning
 * ({@link OptimisticAccess#protect}); a reclamation pass sets the warning and then scans the
 * hazard pointers before it frees ({@link OptimisticAccess#reclaim}). Dekker-style, at least one
 * side must see the other's store: either the scan sees the hazard and keeps the node, or the
 * writer sees the warning and gives up. If both missed, the writer would CAS a freed — here
 * reused — block.
 *
 * <p>Off-heap words: a head word pointing at one node (key {@link OaFixture#KEY}, value
 * {@link OaFixture#VALUE}, next 0). The writer does what {@code find} and {@code remove} do: it
 * loads the head, loads the node's key and re-reads the head, checks the warning, protects the
 * node, then reads the node's value and CASes its next word from 0 to MARK (a mark) while
 * protected. The reclaimer unlinks the node (CAS on the head), retires it, ends its operation
 * (a limbo list of one node: the pass runs there and frees the node unless a hazard pointer holds
 * it), then allocates a node-sized block — usually the block just freed — and writes a new node
 * into it (value {@link OaFixture#REUSED}, next 0).
 *
 * <p>Results: r1 = the writer's outcome (0 it gave up: empty head, changed head or a warning; 1
 * protected and saw the node's own value; 2 protected but saw {@code REUSED}), r2 = 1 if the reuse
 * got the node's block, r3 = 1 if the reused block's next word was still 0 in the arbiter (0: a
 * protected CAS marked a block that had been freed and reused).
 */
public class OaProtectVsReclaimTest {

    /**
     * The shared body: a head word and a node per state, on a scheme shared by the VM. Its
     * outcomes are both schemes' (jcstress reads them through {@code @Inherited}); the actors
     * must stand in each test class, since jcstress generates a test from its own methods.
     */
    @Outcome(id = {"0, [01], 1", "1, [01], 1"}, expect = ACCEPTABLE, desc = "the writer gave up, or worked on the node while it was protected")
    @Outcome(id = "2, .*", expect = FORBIDDEN, desc = "the writer's protected node had been freed and reused")
    @Outcome(id = ".*, .*, 0", expect = FORBIDDEN, desc = "a protected CAS marked a freed and reused block")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    abstract static class Body {
        private final OptimisticAccess rec;
        private final long head;
        private final long node;
        private long reused;

        Body(Reclamation rec) {
            this.rec = (OptimisticAccess) rec;
            head = OaFixture.ALLOC.allocate(Long.BYTES);
            node = OaFixture.ALLOC.allocate(HarrisMichaelCore.NODE_BYTES);
            OaFixture.REGION.setLongPlain(node + HarrisMichaelCore.KEY, OaFixture.KEY);
            OaFixture.REGION.setLongPlain(node + HarrisMichaelCore.STAMP, 1);
            OaFixture.REGION.setLongPlain(node + HarrisMichaelCore.VALUE, OaFixture.VALUE);
            OaFixture.REGION.setLongPlain(node + HarrisMichaelCore.NEXT, 0);
            OaFixture.REGION.setLongRelease(head, node);
        }

        void writer(III_Result r) {
            Participant p = rec.enter();
            try {
                long n = OaFixture.REGION.getLongAcquire(head);
                if (n == 0) return; // r1 = 0: already unlinked
                long key = OaFixture.REGION.getLongPlain(n + HarrisMichaelCore.KEY);
                long again = OaFixture.REGION.getLongAcquire(head);
                if (rec.warned(p) || again != n || key != OaFixture.KEY) return; // find would restart
                if (!rec.protect(p, n, 0, 0)) return;                              // remove would restart
                long value = OaFixture.REGION.getLongPlain(n + HarrisMichaelCore.VALUE);
                OaFixture.REGION.compareAndSetLong(n + HarrisMichaelCore.NEXT, 0, HarrisMichaelCore.MARK);
                rec.unprotect(p);
                r.r1 = value == OaFixture.VALUE ? 1 : 2;
            } finally {
                rec.exit(p);
            }
        }

        void reclaimer(III_Result r) {
            Participant q = rec.enter();
            if (!OaFixture.REGION.compareAndSetLong(head, node, 0)) throw new AssertionError("unlink failed");
            rec.retire(q, node);
            rec.exit(q); // limbo list of one: warn, fence, scan hazards, free what they do not hold
            long b = OaFixture.reuseNodeBlock();
            reused = b;
            r.r2 = b == node ? 1 : 0;
        }

        void check(III_Result r) {
            r.r3 = OaFixture.REGION.getLongAcquire(reused + HarrisMichaelCore.NEXT) == 0 ? 1 : 0;
            OaFixture.ALLOC.free(reused);
            OaFixture.ALLOC.free(head);
            // the node itself: freed by the pass, or (held by the writer's hazard) by a later one
        }
    }

    @JCStressTest
    @Description("OA-VER: hazard pointer then clock check vs clock advance then hazard scan, free and reuse")
    @State
    public static class Ver extends Body {
        static final Reclamation REC = Reclamation.oaVer(OaFixture.ALLOC, 1);

        public Ver() {
            super(REC);
        }

        @Actor
        public void protectAndCas(III_Result r) {
            writer(r);
        }

        @Actor
        public void unlinkReclaimReuse(III_Result r) {
            reclaimer(r);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            check(r);
        }
    }

    @JCStressTest
    @Description("OA-BIT: hazard pointer then warning-bit check vs warning bits then hazard scan, free and reuse")
    @State
    public static class Bit extends Body {
        static final Reclamation REC = Reclamation.oaBit(OaFixture.ALLOC, 1);

        public Bit() {
            super(REC);
        }

        @Actor
        public void protectAndCas(III_Result r) {
            writer(r);
        }

        @Actor
        public void unlinkReclaimReuse(III_Result r) {
            reclaimer(r);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            check(r);
        }
    }
}
