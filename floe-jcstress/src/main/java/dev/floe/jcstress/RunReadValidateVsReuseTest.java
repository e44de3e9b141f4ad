package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.memory.Region;
import dev.floe.reclaim.Nova;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link ReadValidateVsReuseTest} for a slice with an attached run ({@link Nova#allocateWithRun}),
 * read the way the Oak map reads an out-of-line key: begin the read, load the run word from the
 * slice, load from the run, validate the slice.
 *
 * <p>Slice A owns a run of {@link Floe#RUN} bytes (a large allocator block) whose two first words
 * hold A's pointer. The reader loads A's stamp, A's run offset and the run's two words, then
 * validates A. The other actor deletes A (batch 1: A's block and its run are freed at once),
 * allocates a slice B with a run of the same size (usually A's block and A's run again) and writes
 * B's pointer and its complement into B's run. A read that validates must have read A's content:
 * the run is freed only with its slice, so once the run may hold anything else, A's header has
 * changed.
 *
 * <p>Results: r1 = read outcome (0 failed, 1 A's content, 2 anything else), r2 = 1 if B's run is
 * A's run, r3 = 1 if B's run was intact in the arbiter.
 */
@JCStressTest
@Description("Optimistic read of an attached run vs delete + reallocation of the slice and its run")
@Outcome(id = {"0, [01], 1", "1, [01], 1"}, expect = ACCEPTABLE, desc = "the read failed, or validated with A's own content")
@Outcome(id = "2, .*", expect = FORBIDDEN, desc = "the read validated with content that is not A's (a freed run)")
@Outcome(expect = FORBIDDEN, desc = "anything else: B's run was damaged")
@State
public class RunReadValidateVsReuseTest {
    static final Nova NOVA = new Nova(Floe.ALLOC, 1);
    static final Region REGION = Floe.ALLOC.region();

    final long a = Floe.allocateWithNamedRun(NOVA);
    long b;

    @Actor
    public void reader(III_Result r) {
        long p = a;
        long stamp = NOVA.beginRead(p);
        if (stamp == 0) {
            r.r1 = 0;
            return;
        }
        int seen;
        try {
            long run = NOVA.runOf(p, stamp); // optimistic: a reused slice's word may be any offset
            seen = REGION.getLongPlain(run) == p && REGION.getLongPlain(run + 8) == p ? 1 : 2;
        } catch (RuntimeException outsideTheRegion) {
            seen = 2;
        }
        r.r1 = NOVA.validate(p, stamp) ? seen : 0;
    }

    @Actor
    public void deleteAndReuse(III_Result r) {
        long runOfA = NOVA.runOf(a, NOVA.beginReadAny(a)); // before the delete: A's run word is still A's
        if (!NOVA.delete(a)) throw new AssertionError("delete of A failed");
        long q = NOVA.allocateWithRun(Floe.LENGTH, Floe.RUN); // batch 1: A and its run were freed by the delete
        long run = NOVA.runOf(q, NOVA.liveStamp(q));
        REGION.setLongPlain(run, q);
        REGION.setLongPlain(run + 8, ~q);
        b = q;
        r.r2 = run == runOfA ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        long q = b;
        long run = NOVA.runOf(q, NOVA.liveStamp(q));
        r.r3 = REGION.getLongPlain(run) == q && REGION.getLongPlain(run + 8) == ~q ? 1 : 0;
        if (!NOVA.delete(q)) throw new AssertionError("delete of B failed");
    }
}
