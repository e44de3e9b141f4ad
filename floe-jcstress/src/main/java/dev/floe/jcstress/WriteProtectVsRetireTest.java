package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.reclaim.Nova;
import dev.floe.reclaim.SafePointer;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * (b) Write (protect, then validate) vs delete + retire (Nova paper, algorithm 1 lines 10-12,
 * algorithm 2 lines 41-46, section 3.4: "a full fence after the TAP update in line 10", and the
 * appendix A write argument).
 *
 * <p>Slice A holds its own pointer. The writer runs {@code Nova.writeOr} on A and, inside the
 * writer, stores a mark into A's second word and then checks that the block is still A's: still
 * allocated ({@code FloeAllocator.usableSize} accepts it) and its header still carries A's version
 * (deleted or not). The other actor deletes A, runs {@code reclaimNow()} (advance the era,
 * snapshot the hazard slots, free A unless a slot holds it), reallocates a slice B of the same size
 * (usually A's block) and names it. Safety: if the write succeeded, A was not freed or reused
 * before the writer finished — so the writer never sees the block freed or re-headered, and B's
 * content is never overwritten by the writer's mark.
 *
 * <p>What it checks: the Dekker pair in {@code Nova.writeOr} — {@code slots.protect(...)} (a CAS in
 * {@code HazardSlots.protect}, full fence) before the validating {@code
 * access.liveHeaderVolatile(ptr)} — against the drain ({@code RetiringSomar.drain}) — {@code
 * clock.advance()} (full fence) before {@code slots.snapshot()}, after the delete's header CAS.
 * If the protection were published with a plain or release store (no StoreLoad), x86's store
 * buffer lets the writer validate against the not-yet-deleted header while the retirer's snapshot
 * misses the slot: the block is freed and reused under the writer (FORBIDDEN outcomes 2/3 or a
 * damaged B). Validating <em>before</em> protecting is caught the same way (checked by mutation).
 * On x86 the retirer's side is also fenced by the delete's lock-prefixed CAS, so removing only
 * the clock advance's fence is not observable here. Detection of a missing StoreLoad on the
 * writer's side is probabilistic: a handful of FORBIDDEN samples per quick run.
 *
 * <p>The deleter calls {@code reclaimNow()} itself, so A's block is reused at once whatever the
 * batch size. The batch is 2, not 1, so that the test does not depend on how a batch of one
 * handles a slice held by a writer (up to commit 9436130, {@code retire} re-appended it and sealed
 * and drained again, recursively, until the writer left; see NovaRobustnessTest).
 *
 * <p>Results: r1 = write outcome (0 failed, 1 succeeded and the block stayed A's, 2 succeeded but
 * the header had a new version before the write ended, 3 succeeded but the block had been freed),
 * r2 = 1 if the delete found A live, r3 = 1 if B reused A's block, r4 = B's second word in the
 * arbiter (1 its own pointer, 2 the writer's mark, 0 anything else).
 */
@JCStressTest
@Description("Nova hazard-slot write vs delete + retire + reallocation of the same block")
@Outcome(id = {"0, 1, [01], 1", "1, 1, [01], 1"}, expect = ACCEPTABLE,
        desc = "the write failed, or succeeded entirely before A was freed")
@Outcome(id = "[23], .*", expect = FORBIDDEN, desc = "the write succeeded on a block that was freed or reallocated under it")
@Outcome(id = ".*, 2", expect = FORBIDDEN, desc = "the write's mark landed in B, another incarnation")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class WriteProtectVsRetireTest {
    static final Nova NOVA = new Nova(Floe.ALLOC, 2);
    static final long MARK = 0x6D61_726B_6D61_726BL;

    final long a = Floe.allocateNamed(NOVA);
    long b;

    @Actor
    public void writer(IIII_Result r) {
        long p = a;
        long hdr = SafePointer.headerOffset(p);
        r.r1 = NOVA.writeOr(p, (s, x) -> {
            s.set(ValueLayout.JAVA_LONG, 8, MARK);
            try {
                Floe.ALLOC.usableSize(hdr); // throws once the block is freed
            } catch (IllegalArgumentException freed) {
                return 3;
            }
            long header = Floe.ALLOC.region().getLongVolatile(hdr);
            return SafePointer.version(header) == SafePointer.version(p) ? 1 : 2;
        }, null, 0);
    }

    @Actor
    public void deleteRetireReuse(IIII_Result r) {
        r.r2 = NOVA.delete(a) ? 1 : 0;
        NOVA.reclaimNow();
        long q = Floe.allocateNamed(NOVA);
        b = q;
        r.r3 = SafePointer.headerOffset(q) == SafePointer.headerOffset(a) ? 1 : 0;
    }

    @Arbiter
    public void check(IIII_Result r) {
        long q = b;
        long w1 = NOVA.readOr(q, s -> s.get(ValueLayout.JAVA_LONG, 8), 0L);
        r.r4 = w1 == q ? 1 : w1 == MARK ? 2 : 0;
        if (!NOVA.delete(q)) throw new AssertionError("delete of B failed");
    }
}
