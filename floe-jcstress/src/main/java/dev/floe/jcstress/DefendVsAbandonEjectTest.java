package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Snowflake defend vs abandon + reclaim with eager ejection (dev.floe.manual.Shield, "Defend: the
 * protocol and its orderings"; EpochReclaimer).
 *
 * <p>An object holds a unique stamp in both words. The defender opens a shield, defends the
 * owner and, if that succeeded, reads both words. The other actor abandons the owner and runs
 * {@code reclaim()} on a heap whose retire batch is 1 and whose ejection threshold is 1, so the
 * defender's participant is ejected whenever it lags the epoch — also in the middle of a defend —
 * and the object is freed as soon as the protocol allows; then it creates an object of the same
 * size (usually in the freed block) filled with another value. Safety: a successful defend reads
 * its own object's stamp, never the fill of the next object in the same block.
 *
 * <p>What it checks: the owner load, the release store of the slot and the commit CAS of the
 * participant's state word in {@code Shield.tryDefend}, against the reclaimer's read of that word
 * (advance or eject) and its later slot snapshot. Publishing the slot after the commit, or
 * committing without a CAS (a plain store cannot fail when an ejection intervened), lets the
 * reclaimer free the block under the reader.
 *
 * <p>Results: r1 = 0 the defend found the owner empty, 1 it read the stamp twice, 2 it read
 * something else; r2 = 1 if the next object still holds its fill in the arbiter (the defender
 * never writes, so anything else is a corruption).
 */
@JCStressTest
@Description("Snowflake shield defend vs abandon + epoch reclaim with ejection + reuse of the block")
@Outcome(id = {"0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "the defend failed, or read its own object")
@Outcome(id = "2, .*", expect = FORBIDDEN, desc = "a defended read saw another object: use after free")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class DefendVsAbandonEjectTest {
    static final ManualHeap HEAP = new ManualHeap(Floe.ALLOC, new ManualHeap.Config(1, 1));
    static final AtomicLong STAMPS = new AtomicLong();
    static final byte NEXT_FILL = 0x5A;
    static final long NEXT_WORD = 0x5A5A_5A5A_5A5A_5A5AL;

    final long stamp = STAMPS.incrementAndGet();
    final Owner owner = stamped(stamp);
    Owner next;

    private static Owner stamped(long stamp) {
        Owner o = HEAP.create(Floe.LENGTH);
        try (Shield s = o.defend()) {
            s.setLong(0, stamp);
            s.setLong(8, stamp);
        }
        return o;
    }

    @Actor
    public void defender(II_Result r) {
        r.r1 = Floe.defendAndRead(HEAP, owner, stamp);
    }

    @Actor
    public void abandonReclaimReuse() {
        owner.abandon();
        HEAP.reclaim();
        next = HEAP.create(Floe.LENGTH, NEXT_FILL);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = Floe.holdsThenAbandon(next, NEXT_WORD);
    }
}
