package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.reclaim.Nova;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;

/**
 * (c) Racing deletes of one slice through two copies of its pointer (Nova paper, algorithm 2 line
 * 36): exactly one wins. What it checks: the header CAS of a delete ({@code
 * SliceAccess.markDeleted}: {@code region.compareAndSetLong(at, h, h | DELETED)}); a
 * load-then-store instead of the CAS lets both deletes succeed and retires the slice twice (the
 * allocator then refuses the second free, which shows up as a test error). The arbiter
 * also checks the slice reads as deleted afterwards.
 */
@JCStressTest
@Description("Nova: two deletes of the same slice race; exactly one succeeds")
@Outcome(id = {"true, false, true", "false, true, true"}, expect = ACCEPTABLE, desc = "exactly one delete won")
@Outcome(expect = FORBIDDEN, desc = "both or neither won, or the slice survived")
@State
public class RacingDeletesTest {
    static final Nova NOVA = new Nova(Floe.ALLOC, 1);

    final long a = Floe.allocateNamed(NOVA);
    final long copy = a; // the same pointer, held elsewhere

    @Actor
    public void first(ZZZ_Result r) {
        r.r1 = NOVA.delete(a);
    }

    @Actor
    public void second(ZZZ_Result r) {
        r.r2 = NOVA.delete(copy);
    }

    @Arbiter
    public void check(ZZZ_Result r) {
        r.r3 = NOVA.length(a) == -1 && NOVA.readOr(a, s -> Boolean.TRUE, Boolean.FALSE) == Boolean.FALSE;
    }
}
