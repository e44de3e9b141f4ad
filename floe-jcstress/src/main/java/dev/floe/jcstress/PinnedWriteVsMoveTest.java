package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.handle.HandleSpace;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A pinned write (read-modify-write of an object's first word) against a concurrent move of the
 * same object ({@code HandleSpace.move}: mark the entry MOVING with a CAS, snapshot the pins,
 * copy, switch the entry with a CAS; see {@code HandleSpace}'s class comment).
 *
 * <p>What it checks: the Dekker pair between {@code HandleSpace.pin} — the pin's publication in a
 * hazard slot (a CAS, full fence) before the volatile load of the entry's state — and the move —
 * the MOVING CAS (full fence) before {@code HazardSlots.snapshot}. If either side lost its
 * StoreLoad ordering, or a pinner did not cancel a MOVING mark it saw, the mover could copy the
 * object and publish the copy while the writer still writes the old block: the write would be
 * lost (r4 = 1), or the writer would see a value other than the initial one.
 *
 * <p>Results: r1 = the value the writer read before adding 1 (always 1), r2 = 1 if the move
 * happened, r3 = 1 if the object's address changed between the writer's view and the arbiter's
 * read, r4 = the value the arbiter reads (2: the write survived the move).
 */
@JCStressTest
@Description("ALASKA/ANCHORAGE: pinned write vs concurrent move of the same object")
@Outcome(id = "1, 0, 0, 2", expect = ACCEPTABLE, desc = "the move backed off (pinned, or cancelled by the writer)")
@Outcome(id = "1, 1, 0, 2", expect = ACCEPTABLE, desc = "the move happened before the write, which went to the new block")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE, desc = "the move happened after the write and copied it")
@Outcome(id = ".*, [013]", expect = FORBIDDEN, desc = "the write was lost or damaged by the move")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class PinnedWriteVsMoveTest {
    static final HandleSpace SPACE = new HandleSpace(Floe.ALLOC);

    final long h = Floe.allocateStamped(SPACE, 1);
    long writerAddress;

    @Actor
    public void writer(IIII_Result r) {
        r.r1 = SPACE.write(h, s -> {
            long v = s.get(ValueLayout.JAVA_LONG, 0);
            s.set(ValueLayout.JAVA_LONG, 0, v + 1);
            writerAddress = s.address();
            return (int) v;
        });
    }

    @Actor
    public void mover(IIII_Result r) {
        r.r2 = SPACE.move(h) ? 1 : 0;
    }

    @Arbiter
    public void check(IIII_Result r) {
        long[] at = new long[1];
        r.r4 = SPACE.read(h, s -> {
            at[0] = s.address();
            return (int) s.get(ValueLayout.JAVA_LONG, 0);
        });
        r.r3 = at[0] != writerAddress ? 1 : 0;
        SPACE.free(h);
    }
}
