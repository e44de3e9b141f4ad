package dev.floe.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.floe.map.OakCodecs;
import dev.floe.map.OakMap;
import dev.floe.reclaim.Nova;
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
 * The Oak map's value protocol off-heap ({@code dev.floe.map.ValueSlices}): a zero-copy read of a
 * value against a zero-copy writer that changes it in place. The value is two longs, 0 and 0; the
 * writer sets both to 1, one store after the other, under the value's lock. The reader
 * ({@code zc().get(k).transform}) is an optimistic seqlock read: it reads the lock word, the two
 * longs, then the lock word again, and retries if a write started or completed in between.
 * <ul>
 *   <li>{@link Completes}: the writer returns. The reader sees both longs before or both after,
 *       never one of each (a torn value).</li>
 *   <li>{@link Fails}: the writer throws after its two stores. Its writes are undone before the
 *       value is unlocked ({@code dev.floe.map.UndoLog}), so the reader, and the arbiter after
 *       both, see only the old value; a 1 anywhere is a failed update that became visible.</li>
 *   <li>{@link Computes}: a legacy {@code compute} whose function returns the new value. The
 *       function runs while the value is only claimed (C in {@code ValueSlices}), which readers
 *       pass; the write lock (L) is taken before the new bytes are written in place
 *       ({@code ValueSlices.beginWrite}), so the reader sees both longs before or both after.</li>
 * </ul>
 * Checked by mutation when written (2026-11-23, quick mode, 2 cores): with the reader's second
 * lock-word check removed ({@code ValueSlices.read} returning without {@code stable}),
 * {@code Completes} reports torn values in 14 of 14 configurations; with the write-back removed
 * ({@code OakWriteBuffer.abandon} without {@code rollback}), {@code Fails} fails in 14 of 14.
 *
 * <p>Results: r1, r2 = the reader's two longs; r3 = the arbiter's two longs as
 * {@code 10 × first + second}.
 */
public class MapWriterVsReadTest {
    /** One Nova on the shared allocator for the maps of every state (a map per state is cheap). */
    static final Nova NOVA = new Nova(Floe.ALLOC);

    /** A map with key 1 mapped to two zero longs. */
    abstract static class Body {
        final OakMap<Long, byte[]> map =
                OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).nova(NOVA).build();

        Body() {
            map.put(1L, new byte[16]);
        }

        void read(III_Result r) {
            long both = map.zc().get(1L).transform(s ->
                    s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) << 1 | s.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
            r.r1 = (int) (both >> 1);
            r.r2 = (int) (both & 1);
        }

        void check(III_Result r) {
            byte[] v = map.get(1L);
            MemorySegment s = MemorySegment.ofArray(v);
            r.r3 = (int) (10 * s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) + s.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
            map.close();
        }
    }

    @JCStressTest
    @Description("Oak map: zero-copy read vs an in-place writer that completes")
    @Outcome(id = {"0, 0, 11", "1, 1, 11"}, expect = ACCEPTABLE, desc = "the read saw the value before or after the write")
    @Outcome(id = {"0, 1, 11", "1, 0, 11"}, expect = FORBIDDEN, desc = "the read accepted a torn value")
    @Outcome(expect = FORBIDDEN, desc = "anything else: the write was lost or damaged")
    @State
    public static class Completes extends Body {
        @Actor
        public void writer() {
            map.zc().computeIfPresent(1L, w -> {
                w.putLong(0, 1);
                w.putLong(8, 1);
            });
        }

        @Actor
        public void reader(III_Result r) {
            read(r);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            check(r);
        }
    }

    @JCStressTest
    @Description("Oak map: zero-copy read vs a legacy compute, whose function runs under a claim readers pass")
    @Outcome(id = {"0, 0, 11", "1, 1, 11"}, expect = ACCEPTABLE, desc = "the read saw the value before or after the compute")
    @Outcome(id = {"0, 1, 11", "1, 0, 11"}, expect = FORBIDDEN, desc = "the read accepted a torn value")
    @Outcome(expect = FORBIDDEN, desc = "anything else: the compute was lost or damaged")
    @State
    public static class Computes extends Body {
        @Actor
        public void writer() {
            map.compute(1L, (k, v) -> { // adds 1 to both longs of the old value, deserialized under the claim
                MemorySegment s = MemorySegment.ofArray(v);
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) + 1);
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, s.get(ValueLayout.JAVA_LONG_UNALIGNED, 8) + 1);
                return v;
            });
        }

        @Actor
        public void reader(III_Result r) {
            read(r);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            check(r);
        }
    }

    @JCStressTest
    @Description("Oak map: zero-copy read vs an in-place writer that throws after its writes")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the read and the arbiter saw the old value only")
    @Outcome(expect = FORBIDDEN, desc = "a write of the failed writer was seen, or stayed")
    @State
    public static class Fails extends Body {
        @Actor
        public void writer() {
            try {
                map.zc().computeIfPresent(1L, w -> {
                    w.putLong(0, 1);
                    w.putLong(8, 1);
                    throw new WriterFailed();
                });
                throw new AssertionError("the writer's exception did not propagate");
            } catch (WriterFailed expected) {
                // the writer failed: the value must be as it was
            }
        }

        @Actor
        public void reader(III_Result r) {
            read(r);
        }

        @Arbiter
        public void arbiter(III_Result r) {
            check(r);
        }
    }

    /** Thrown by {@link Fails}'s writer. */
    static final class WriterFailed extends RuntimeException {
        WriterFailed() {
            super("writer failed on purpose", null, false, false);
        }
    }
}
