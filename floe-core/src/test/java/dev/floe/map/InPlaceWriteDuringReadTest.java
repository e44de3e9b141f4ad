package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An optimistic read that overlaps an in-place write of the same length must not be accepted:
 * the write's unlock advances the sequence in the value's lock word, so the reader's re-check
 * (lock word unchanged) fails and it reads again. Without the sequence step the lock word after
 * the write equals the one the reader started from (same length, unlocked), and the reader
 * returns half the old value and half the new. Stress tests need a write to land inside a read
 * that is a few nanoseconds long; here it lands there every time, without timing: the value's
 * deserializer stops the reading thread between the value's two words, the test writes the
 * value in place (put of the same size, or a zero-copy compute), then lets the reader go on.
 */
class InPlaceWriteDuringReadTest {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Two longs; stops {@link #reader} once between loading them. */
    static final class PairCodec implements OakSerializer<long[]> {
        volatile Thread reader;
        volatile boolean armed;
        final SynchronousQueue<Boolean> stopped = new SynchronousQueue<>();
        final SynchronousQueue<Boolean> resume = new SynchronousQueue<>();

        @Override
        public void serialize(long[] v, MemorySegment target) {
            target.set(L, 0, v[0]);
            target.set(L, 8, v[1]);
        }

        @Override
        public long[] deserialize(MemorySegment source) {
            long a = source.get(L, 0);
            if (armed && Thread.currentThread() == reader) {
                armed = false;
                try {
                    stopped.put(Boolean.TRUE);
                    resume.take();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            long b = source.get(L, 8);
            return new long[] {a, b};
        }

        @Override
        public int sizeOf(long[] v) {
            return 16;
        }
    }

    @Test
    void aReadOverlappingAnInPlaceWriteReadsAgain() throws Exception {
        for (int variant = 0; variant < 4; variant++) {
            PairCodec codec = new PairCodec();
            try (OakMap<Long, long[]> map = OakMap.builder(OakCodecs.LONG, codec, OakCodecs.LONG).build()) {
                long key = 7;
                map.put(key, new long[] {1, 1});
                boolean viaZc = (variant & 1) == 1, viaCompute = (variant & 2) == 2;
                AtomicReference<Object> result = new AtomicReference<>();
                Thread reader = Thread.ofPlatform().daemon().unstarted(() -> {
                    try {
                        result.set(viaZc ? map.zc().get(key).transform(codec::deserialize) : map.get(key));
                    } catch (Throwable t) {
                        result.set(t);
                    }
                });
                codec.reader = reader;
                codec.armed = true;
                reader.start();
                Boolean stop = codec.stopped.poll(1, TimeUnit.MINUTES);
                assertTrue(stop != null, "the reader never deserialized the value");
                try {
                    if (viaCompute) {
                        assertTrue(map.zc().computeIfPresent(key, b -> {
                            b.putLong(0, 2);
                            b.putLong(8, 2);
                        }));
                    } else {
                        assertArrayEquals(new long[] {1, 1}, map.put(key, new long[] {2, 2})); // same size: in place
                    }
                } finally {
                    codec.resume.put(Boolean.TRUE);
                }
                reader.join(60_000);
                Object r = result.get();
                if (r instanceof Throwable t) throw new AssertionError("the read failed", t);
                assertArrayEquals(new long[] {2, 2}, (long[]) r,
                        "variant " + variant + ": a read overlapping an in-place write returned a mix of the two values");
            }
        }
    }
}
