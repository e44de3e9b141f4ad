package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.handle.HandleSpace;
import dev.floe.handle.Pin;
import dev.floe.handle.StaleHandleException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A pin against a free of the same object followed at once by a drain and a new allocation
 * that usually reuses the freed block ({@code HandleSpace.pin}, {@code free},
 * {@code drainRetired}; see {@code HandleSpace}'s class comment).
 *
 * <p>What it checks: the Dekker pair between the pin — its publication in a hazard slot (a CAS,
 * full fence) before the volatile load of the entry's state — and the free — the state CAS to
 * FREE (full fence) before the drain's snapshot of the pins. Either the pin sees FREE and fails
 * ({@code StaleHandleException}), or the drain sees the pin and keeps the block until a later
 * drain. If either side lost its StoreLoad ordering, or the drain ignored a pin, the freer could
 * allocate the pinned block again and zero and stamp it while the pinner reads it: the pinner
 * would see 0 or 2 instead of its object's 1.
 *
 * <p>Results: r1 = 1 if the pin succeeded, r2 = what the pinner read in the first word: the
 * first of its two reads that was not 1, else 1 (-1 without a pin), r3 = 1 if the freer's new object got the freed block (reuse happened;
 * informational, it shows the race was there).
 */
@JCStressTest
@Description("ALASKA: pin vs free, drain and reuse of the same object's block")
@Outcome(id = "1, 1, [01]", expect = ACCEPTABLE, desc = "pinned first: the block was kept while pinned")
@Outcome(id = "0, -1, [01]", expect = ACCEPTABLE, desc = "freed first: the pin failed")
@Outcome(id = "1, [02], .*", expect = FORBIDDEN, desc = "the pinned block was reused while pinned")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class PinVsFreeReuseTest {
    static final HandleSpace SPACE = new HandleSpace(Floe.ALLOC);

    final long h = Floe.allocateStamped(SPACE, 1);
    final long address = SPACE.read(h, MemorySegment::address);
    long replacement;

    @Actor
    public void pinner(III_Result r) {
        try (Pin p = SPACE.pin(h)) {
            MemorySegment s = p.segment();
            long first = s.get(ValueLayout.JAVA_LONG, 0);
            long last = s.get(ValueLayout.JAVA_LONG, 0); // a second look, later in the freer's reuse
            r.r1 = 1;
            r.r2 = first != 1 ? (int) first : (int) last;
        } catch (StaleHandleException freed) {
            r.r1 = 0;
            r.r2 = -1;
        }
    }

    @Actor
    public void freer(III_Result r) {
        SPACE.free(h);
        SPACE.drainRetired(); // the block goes back unless the drain sees the pin
        replacement = Floe.allocateStamped(SPACE, 2);
        r.r3 = SPACE.read(replacement, MemorySegment::address) == address ? 1 : 0;
    }

    @Arbiter
    public void cleanUp(III_Result r) {
        SPACE.free(replacement);
    }
}
