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
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link WriteProtectVsRetireTest} for a slice with an attached run ({@link Nova#allocateWithRun},
 * the Oak map's large values): the run is freed by the retire that frees the slice, so the
 * slice's hazard slot must keep the run too.
 *
 * <p>Slice A owns a run of {@link Floe#RUN} bytes (a large allocator block) whose first word holds A's
 * pointer. The writer runs {@code Nova.writeOr} on A and, inside the writer, stores a mark into
 * the run's second word and checks that the run is still allocated. The other actor deletes A,
 * runs {@code reclaimNow()}, allocates a slice B with a run of the same size (usually A's run
 * again) and names B's run with B's pointer. Safety: if the write succeeded, A's run was not freed
 * before it finished, and B's run never holds the writer's mark.
 *
 * <p>Results: r1 = write outcome (0 failed, 1 succeeded and the run stayed allocated, 3 succeeded
 * but the run had been freed), r2 = 1 if the delete found A live, r3 = 1 if B's run is A's run,
 * r4 = B's run's second word in the arbiter (1 B's pointer, 2 the writer's mark, 0 anything else).
 */
@JCStressTest
@Description("Nova hazard-slot write into an attached run vs delete + retire + reallocation of the run")
@Outcome(id = {"0, 1, [01], 1", "1, 1, [01], 1"}, expect = ACCEPTABLE,
        desc = "the write failed, or succeeded entirely before A and its run were freed")
@Outcome(id = "3, .*", expect = FORBIDDEN, desc = "the write succeeded on a run that was freed under it")
@Outcome(id = ".*, 2", expect = FORBIDDEN, desc = "the write's mark landed in B's run")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class RunWriteProtectVsRetireTest {
    static final Nova NOVA = new Nova(Floe.ALLOC, 2);
    static final long MARK = 0x6D61_726B_6D61_726BL;

    final long a = Floe.allocateWithNamedRun(NOVA);
    long b;

    @Actor
    public void writer(IIII_Result r) {
        long p = a;
        r.r1 = NOVA.writeOr(p, (s, x) -> {
            // the stamp of A's incarnation, deleted or not (the delete may land during the write)
            long run = NOVA.runOf(p, NOVA.beginReadAny(p));
            Floe.ALLOC.region().setLongPlain(run + 8, MARK);
            try {
                Floe.ALLOC.usableSize(run); // throws once the run is freed
            } catch (IllegalArgumentException freed) {
                return 3;
            }
            return 1;
        }, null, 0);
    }

    @Actor
    public void deleteRetireReuse(IIII_Result r) {
        long runA = NOVA.runOf(a, NOVA.beginRead(a)); // A is live until this actor deletes it
        r.r2 = NOVA.delete(a) ? 1 : 0;
        NOVA.reclaimNow();
        long q = Floe.allocateWithNamedRun(NOVA);
        b = q;
        r.r3 = NOVA.runOf(q, NOVA.beginRead(q)) == runA ? 1 : 0;
    }

    @Arbiter
    public void check(IIII_Result r) {
        long q = b;
        long run = NOVA.runOf(q, NOVA.beginRead(q));
        long w1 = Floe.ALLOC.region().getLongPlain(run + 8);
        r.r4 = w1 == q ? 1 : w1 == MARK ? 2 : 0;
        if (!NOVA.delete(q)) throw new AssertionError("delete of B failed");
    }
}
