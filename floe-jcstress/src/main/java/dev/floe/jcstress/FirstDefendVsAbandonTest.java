package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A thread's first defend on a heap (its join: dev.floe.manual.ParticipantRegistry) against an
 * abandon, a reclaim and a reuse of the block by another thread.
 *
 * <p>Every state has a heap of its own, so the defender registers its participant record during
 * the test, while the other actor's reclaim scans the record table and advances the epoch. The
 * registry's argument: a scan that misses the record being added read the global epoch before
 * the record was published, and the joining thread reads the epoch only after, so its state
 * never lags the epoch that scan moves past. If a join could be missed by a scan and still
 * commit an older epoch, the reclaim would free the block under the defender's shield and the
 * next object's fill would show through.
 *
 * <p>Results: r1 = 0 the defend found the owner empty, 1 it read the object's fill in both
 * words, 2 anything else; r2 = 1 if the next object still holds its fill in the arbiter.
 */
@JCStressTest
@Description("Snowflake: a thread's first defend on a heap (join) vs abandon + reclaim + reuse")
@Outcome(id = {"0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "the defend failed, or read its own object")
@Outcome(id = "2, .*", expect = FORBIDDEN, desc = "a defended read saw another object: use after free")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class FirstDefendVsAbandonTest {
    static final byte FILL = 0x33;
    static final long WORD = 0x3333_3333_3333_3333L;
    static final byte NEXT_FILL = 0x5A;
    static final long NEXT_WORD = 0x5A5A_5A5A_5A5A_5A5AL;

    /** Retire batch 1 and ejection threshold 1: the reclaim frees as early as the protocol allows. */
    final ManualHeap heap = new ManualHeap(Floe.ALLOC, new ManualHeap.Config(1, 1));
    final Owner owner = heap.create(Floe.LENGTH, FILL); // no shield: nobody has joined yet
    Owner next;

    @Actor
    public void firstDefend(II_Result r) {
        r.r1 = Floe.defendAndRead(heap, owner, WORD); // the thread's first shield on this heap: it joins
    }

    @Actor
    public void abandonReclaimReuse() {
        owner.abandon();
        heap.reclaim();
        next = heap.create(Floe.LENGTH, NEXT_FILL);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = Floe.holdsThenAbandon(next, NEXT_WORD);
        heap.reclaim(); // gives both blocks back to the shared allocator
    }
}
