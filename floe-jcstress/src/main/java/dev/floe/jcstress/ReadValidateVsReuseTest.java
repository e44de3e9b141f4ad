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
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * (a) Optimistic read vs delete + reuse (Nova paper, algorithm 1 lines 5-6 and section 3.4: "a
 * load fence after line 5").
 *
 * <p>Slice A holds its own pointer in both words. The reader runs {@code Nova.readOr} on A; the
 * other actor deletes A, which with a batch of 1 retires and frees A's block at once, reallocates
 * a slice B of the same size (same thread, same cache stripe: usually A's very block, with a new
 * version) and writes B's pointer into it. A read that <em>succeeds</em> must have returned A's
 * content; a success with any other content is a value read from a retired slice.
 *
 * <p>What it checks, in {@code Nova.readOr}: the post-read validation — {@code
 * VarHandle.loadLoadFence()} followed by the plain re-load of the header ({@code
 * access.unchanged(ptr, h)}), which must come after the reader's data loads. Removing the re-validation makes the
 * FORBIDDEN outcome appear on any hardware (checked by mutating a copy of Nova when this test was
 * written). Removing only the fence is visible on weakly ordered CPUs (ARM, POWER) or when the JIT
 * hoists the plain header load above the data loads; x86 itself never reorders loads with loads,
 * so on x86 this test cannot tell the fence is missing unless the compiler moves the load.
 *
 * <p>It also checks that reuse changes the version (the clock advance at the start of the drain,
 * {@code RetiringSomar.drain}, before the block is freed): without it B's pointer equals A's (outcome r2 = 2) and A's readers
 * validate against B's header (r1 = 2, B's second word is not A's).
 *
 * <p>Results: r1 = read outcome (0 failed, 1 A's content, 2 anything else), r2 = 1 if B reused
 * A's block (2 if B's pointer is A's pointer), r3 = 1 if B's content was intact in the arbiter.
 */
@JCStressTest
@Description("Nova optimistic read vs delete + reallocation of the same block")
@Outcome(id = {"0, [01], 1", "1, [01], 1"}, expect = ACCEPTABLE, desc = "the read failed, or returned A's own content")
@Outcome(id = "2, .*", expect = FORBIDDEN, desc = "the read succeeded with content that is not A's (a retired slice's value)")
@Outcome(id = ".*, 2, .*", expect = FORBIDDEN, desc = "the reused block got A's pointer again: the version did not change")
@Outcome(expect = FORBIDDEN, desc = "anything else: B's content was damaged")
@State
public class ReadValidateVsReuseTest {
    static final Nova NOVA = new Nova(Floe.ALLOC, 1);

    final long a = Floe.allocateNamed(NOVA);
    long b;

    @Actor
    public void reader(III_Result r) {
        long p = a;
        Integer seen = NOVA.readOr(p, s -> {
            long w0 = s.get(ValueLayout.JAVA_LONG, 0);
            long w1 = s.get(ValueLayout.JAVA_LONG, 8);
            return w0 == p && w1 == p ? 1 : 2;
        }, 0);
        r.r1 = seen;
    }

    @Actor
    public void deleteAndReuse(III_Result r) {
        if (!NOVA.delete(a)) throw new AssertionError("delete of A failed");
        long q = NOVA.allocate(Floe.LENGTH); // batch 1: A's block was freed by the delete above
        // B's second word is not its pointer: even if B's pointer equalled A's (no version change on
        // reuse), a reader of A must not see B's content
        NOVA.writePrivate(q, (s, x) -> {
            s.set(ValueLayout.JAVA_LONG, 0, q);
            s.set(ValueLayout.JAVA_LONG, 8, ~q);
            return null;
        }, null);
        b = q;
        r.r2 = q == a ? 2 : SafePointer.headerOffset(q) == SafePointer.headerOffset(a) ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        long q = b;
        r.r3 = NOVA.readOr(q, s -> s.get(ValueLayout.JAVA_LONG, 0) == q && s.get(ValueLayout.JAVA_LONG, 8) == ~q ? 1 : 0, 0);
        if (!NOVA.delete(q)) throw new AssertionError("delete of B failed");
    }
}
