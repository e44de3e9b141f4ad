package dev.floe.handle;

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
 * The lock-free handle area's release rule ({@link AreaChunk}'s state word): the free of a chunk's
 * last block against a reservation in the same chunk. Exactly one wins: either the free empties
 * the chunk and marks it RELEASED in the same CAS (the reservation then fails, and the chunk can
 * go back to the allocator), or the reservation comes first (the free leaves one block live and
 * the chunk stays). A released chunk with a successful reservation would hand out a block of
 * memory that is about to be returned to the OS.
 *
 * <p>Lives in {@code dev.floe.handle} to reach the package-private chunk; a chunk is on-heap
 * bookkeeping only, so the states need no off-heap memory.
 *
 * <p>Results: r1 = {@link AreaChunk#clear} result (0 cleared, 2 emptied), r2 = 1 if the
 * reservation succeeded, r3 = 10 × released + live count afterwards.
 */
@JCStressTest
@Description("ANCHORAGE handle area: free of a chunk's last block vs a reservation in it")
@Outcome(id = "2, 0, 10", expect = ACCEPTABLE, desc = "the free emptied and released the chunk; the reservation was refused")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the reservation came first; the chunk keeps one block and stays")
@Outcome(expect = FORBIDDEN, desc = "a released chunk with a reservation, or a lost count")
@State
public class LastFreeVsReserveTest {
    private final AreaChunk chunk = new AreaChunk(0, 0, 64, 64 * 64, 1);
    private final long block = chunk.claim(1); // the carver's block: the only one live

    @Actor
    public void free(III_Result r) {
        r.r1 = chunk.clear(block);
    }

    @Actor
    public void reserve(III_Result r) {
        r.r2 = chunk.reserve() ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = (chunk.isReleased() ? 10 : 0) + chunk.live();
    }
}
