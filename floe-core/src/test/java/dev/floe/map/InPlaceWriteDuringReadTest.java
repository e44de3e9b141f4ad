package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
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

        /** Stopped once after it wrote both words, if armed: the holder has written but not unlocked. */
        volatile Thread writer;
        volatile boolean writerArmed;
        final SynchronousQueue<Boolean> written = new SynchronousQueue<>();
        final SynchronousQueue<Boolean> unlockNow = new SynchronousQueue<>();

        @Override
        public void serialize(long[] v, MemorySegment target) {
            target.set(L, 0, v[0]);
            target.set(L, 8, v[1]);
            if (writerArmed && Thread.currentThread() == writer) {
                writerArmed = false;
                stop(written, unlockNow);
            }
        }

        /** Tells the test this thread stopped, then waits until the test lets it go on. */
        private static void stop(SynchronousQueue<Boolean> tell, SynchronousQueue<Boolean> waitFor) {
            try {
                tell.put(Boolean.TRUE);
                waitFor.take();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public long[] deserialize(MemorySegment source) {
            long a = source.get(L, 0);
            if (armed && Thread.currentThread() == reader) {
                armed = false;
                stop(stopped, resume);
            }
            long b = source.get(L, 8);
            return new long[] {a, b};
        }

        @Override
        public int sizeOf(long[] v) {
            return 16;
        }
    }

    /**
     * Starts a thread that reads {@code key} (a get, or a zero-copy get and transform) into
     * {@code result} (its value or its exception) and stops once between the value's two words.
     */
    private static Thread startStoppingReader(PairCodec codec, OakMap<Long, long[]> map, long key, boolean viaZc,
                                              AtomicReference<Object> result) {
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
        return reader;
    }

    /**
     * A legacy compute holds the value only by a claim while its function runs, and readers pass
     * it ({@link ValueSlices}, C). A read that started then must still fail once the holder writes
     * the new value in place: the holder sets L before its first store, so the reader's re-check
     * sees the lock word changed and reads again, waiting for the unlock. Here the reader starts
     * while the function runs and stops between the value's two words; the function returns, the
     * new value is written and the serializer stops before the unlock; the reader resumes. Without
     * L its re-check saw the claimed word unchanged and it returned {1, 2} (checked by making
     * {@code ValueSlices.beginWrite} a no-op).
     */
    @Test
    void aReadThatPassedAClaimReadsAgainOnceTheHolderWrites() throws Exception {
        for (boolean viaZc : new boolean[] {false, true}) {
            PairCodec codec = new PairCodec();
            try (OakMap<Long, long[]> map = OakMap.builder(OakCodecs.LONG, codec, OakCodecs.LONG).build()) {
                long key = 7;
                map.put(key, new long[] {1, 1});
                CountDownLatch inFunction = new CountDownLatch(1);
                CountDownLatch functionMayReturn = new CountDownLatch(1);
                Thread writer = Thread.ofPlatform().daemon().unstarted(() -> map.compute(key, (k, v) -> {
                    inFunction.countDown();
                    try {
                        functionMayReturn.await();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    return new long[] {2, 2}; // same size: written in place
                }));
                codec.writer = writer;
                codec.writerArmed = true;
                writer.start();
                assertTrue(inFunction.await(1, TimeUnit.MINUTES), "the compute never ran its function");

                AtomicReference<Object> result = new AtomicReference<>();
                Thread reader = startStoppingReader(codec, map, key, viaZc, result);
                assertTrue(codec.stopped.poll(1, TimeUnit.MINUTES) != null, "the reader did not pass the claimed value");
                functionMayReturn.countDown();
                assertTrue(codec.written.poll(1, TimeUnit.MINUTES) != null, "the compute never wrote its value");
                codec.resume.put(Boolean.TRUE);
                reader.join(500); // a reader that accepts the half-old value ends here
                assertTrue(reader.isAlive() || !(result.get() instanceof long[] r) || r[0] == r[1],
                        "viaZc " + viaZc + ": the read accepted " + Arrays.toString((long[]) result.get()));
                codec.unlockNow.put(Boolean.TRUE);
                reader.join(60_000);
                writer.join(60_000);
                Object r = result.get();
                if (r instanceof Throwable t) throw new AssertionError("the read failed", t);
                assertArrayEquals(new long[] {2, 2}, (long[]) r, "viaZc " + viaZc + ": the read after the write");
            }
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
                Thread reader = startStoppingReader(codec, map, key, viaZc, result);
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
