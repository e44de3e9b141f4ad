package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A value serializer that throws midway through an in-place rewrite of a present value, and a
 * zero-copy writer that throws after writing. Every update of the legacy API has the previous
 * value deserialized and writes it back, and a writer's writes are undone ({@link UndoLog}), so
 * the failed update leaves the mapping as it was (as in {@code ConcurrentSkipListMap}); the
 * zero-copy put has no previous value and leaves the bytes written (documented). Readers never
 * accept the partial bytes. {@link FailedWriterPropertyTest} varies the writers' steps.
 */
class FailedRewriteTest {

    /**
     * Values are two equal longs (16 bytes). A negative value is a poison one: its serializer
     * writes the first long, then throws, leaving half a value in place. The value in
     * {@link #refused} makes it throw before writing anything. Deserializing two different longs
     * gives {@link #TORN}.
     */
    private static final class HalfWritingCodec implements OakSerializer<Long> {
        final AtomicLong refused = new AtomicLong(Long.MAX_VALUE);

        @Override
        public void serialize(Long v, MemorySegment target) {
            if (v == refused.get()) throw new IllegalStateException("serializer refused " + v);
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            if (v < 0) throw new IllegalStateException("serializer failed after half of " + v);
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, v);
        }

        @Override
        public Long deserialize(MemorySegment source) {
            long a = source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0), b = source.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
            return a == b ? a : TORN;
        }

        @Override
        public int sizeOf(Long v) {
            return 16;
        }

        static final long TORN = Long.MIN_VALUE;
    }

    private static OakMap<Long, Long> newMap(HalfWritingCodec codec) {
        OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, codec, OakCodecs.LONG).maxChunkEntries(4).build();
        for (long k = 0; k < 10; k++) m.put(k, k);
        return m;
    }

    @Test
    void everyLegacyUpdateThatFailsMidwayLeavesTheOldValue() {
        try (OakMap<Long, Long> m = newMap(new HalfWritingCodec())) {
            assertThrows(IllegalStateException.class, () -> m.put(1L, -1L));
            assertThrows(IllegalStateException.class, () -> m.replace(2L, -2L));
            assertThrows(IllegalStateException.class, () -> m.replace(3L, 3L, -3L));
            assertThrows(IllegalStateException.class, () -> m.compute(4L, (k, v) -> -4L));
            assertThrows(IllegalStateException.class, () -> m.computeIfPresent(5L, (k, v) -> -5L));
            assertThrows(IllegalStateException.class, () -> m.merge(6L, 1L, (a, b) -> -6L));
            assertThrows(IllegalStateException.class, () -> m.subMap(7L, true, 7L, true).replaceAll((k, v) -> -7L));
            assertThrows(IllegalStateException.class, () -> m.descendingMap().put(8L, -8L));
            for (long k = 0; k < 10; k++) assertEquals(k, m.get(k), "key " + k);
            assertEquals(10, m.size());
            for (long k = 1; k <= 8; k++) assertEquals(k, m.put(k, k + 100), "key " + k + " is unlocked and usable");
        }
    }

    /** The zero-copy put returns no old value and has none to write back: the bytes written stay. */
    @Test
    void theZeroCopyPutLeavesTheBytesItWrote() {
        try (OakMap<Long, Long> m = newMap(new HalfWritingCodec())) {
            assertThrows(IllegalStateException.class, () -> m.zc().put(1L, -1L));
            assertEquals(HalfWritingCodec.TORN, m.get(1L));
            m.zc().put(1L, 11L);
            assertEquals(11L, m.get(1L));
        }
    }

    /** If writing the old value back fails too, the first failure carries the second and the key stays usable. */
    @Test
    void aFailedWriteBackIsSuppressedAndTheValueUnlocked() {
        HalfWritingCodec codec = new HalfWritingCodec();
        try (OakMap<Long, Long> m = newMap(codec)) {
            codec.refused.set(1L); // the old value of key 1 cannot be written back
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.put(1L, -21L));
            assertTrue(e.getMessage().contains("half of -21"), e.getMessage());
            assertEquals(1, e.getSuppressed().length, "the write-back's failure");
            assertEquals("serializer refused 1", e.getSuppressed()[0].getMessage());
            codec.refused.set(Long.MAX_VALUE);
            assertEquals(HalfWritingCodec.TORN, m.put(1L, 31L), "the first long of the failed put stays");
            assertEquals(31L, m.get(1L));
        }
    }

    /** A writer that throws after writing in place, or after growing the value into a new block, changes nothing. */
    @Test
    void aZeroCopyWriterThatThrowsChangesNothing() {
        try (OakMap<Long, Long> m = newMap(new HalfWritingCodec())) {
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(1L, w -> {
                w.putLong(0, 100L);
                w.putLong(8, 100L);
                throw new IllegalStateException("writer failed");
            }));
            assertThrows(IllegalStateException.class, () -> m.zc().putIfAbsentComputeIfPresent(2L, 0L, w -> {
                w.putLong(0, 200L);
                w.resize(4_000); // beyond the block: a copy, dropped
                w.putLong(8, 200L);
                throw new IllegalStateException("writer failed");
            }));
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(3L, w -> {
                w.segment().fill((byte) 9);
                w.resize(3);
                w.resize(16); // zero-fills bytes of the locked value
                throw new IllegalStateException("writer failed");
            }));
            for (long k = 1; k <= 3; k++) {
                assertEquals(k, m.get(k));
                assertEquals(16, m.zc().get(k).size());
            }
        }
    }

    /**
     * User code under a lock may update another key: each update keeps its own log (the thread's
     * log is busy with the outer one), so the inner failure is undone alone and the outer one's
     * later failure restores its own bytes.
     */
    @Test
    void nestedUpdatesUndoTheirOwnWrites() {
        try (OakMap<Long, Long> m = newMap(new HalfWritingCodec()); OakMap<Long, Long> other = newMap(new HalfWritingCodec())) {
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(1L, w -> {
                w.putLong(0, 100L);
                assertThrows(IllegalStateException.class, () -> other.zc().computeIfPresent(1L, v -> {
                    v.putLong(0, 300L);
                    throw new IllegalStateException("inner writer failed");
                }));
                other.zc().computeIfPresent(2L, v -> v.segment().fill((byte) 0));
                assertThrows(IllegalStateException.class, () -> m.put(4L, -4L)); // the serializer fails
                w.putLong(8, 100L);
                throw new IllegalStateException("outer writer failed");
            }));
            assertEquals(1L, m.get(1L));
            assertEquals(4L, m.get(4L));
            assertEquals(1L, other.get(1L));
            assertEquals(0L, other.get(2L), "the inner update that returned stands");
            m.zc().computeIfPresent(1L, w -> { w.putLong(0, 5L); w.putLong(8, 5L); });
            assertEquals(5L, m.get(1L));
        }
    }

    /**
     * Writers alternate good puts and poison updates (a put and a compute whose serializer fails
     * midway, a zero-copy writer that throws after half) on a few keys, while readers read them
     * through every read path: no read may return a torn or poison value, and at the end every
     * key holds the last good value its writer put.
     */
    @Test
    void concurrentReadersNeverSeeAFailedRewrite() throws Exception {
        HalfWritingCodec codec = new HalfWritingCodec();
        int keys = 4, writers = 2, readers = 2;
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, codec, OakCodecs.LONG).maxChunkEntries(4).build()) {
            for (long k = 0; k < keys * writers; k++) m.put(k, 0L);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong(), failedPuts = new AtomicLong();
            long[][] last = new long[writers][keys];
            Thread[] threads = new Thread[writers + readers];
            for (int w = 0; w < writers; w++) {
                int id = w;
                threads[w] = new Thread(() -> {
                    try {
                        for (long i = 1; i <= 20_000; i++) {
                            long key = id * keys + i % keys;
                            m.put(key, i);
                            last[id][(int) (i % keys)] = i;
                            try {
                                switch ((int) (i % 3)) {
                                    case 0 -> m.put(key, -i);
                                    case 1 -> m.compute(key, (k, v) -> -v);
                                    default -> m.zc().computeIfPresent(key, b -> {
                                        b.putLong(0, -b.getLong(0));
                                        throw new IllegalStateException("writer failed after half");
                                    });
                                }
                                failure.compareAndSet(null, new AssertionError("a poison put succeeded"));
                            } catch (IllegalStateException expected) {
                                failedPuts.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                });
            }
            for (int r = 0; r < readers; r++) {
                threads[writers + r] = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            for (long k = 0; k < keys * writers; k++) {
                                check(k, m.get(k));
                                check(k, m.zc().get(k).transform(codec::deserialize));
                            }
                            for (Map.Entry<Long, Long> e : m.entrySet()) check(e.getKey(), e.getValue());
                            reads.incrementAndGet();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                });
            }
            for (Thread t : threads) t.start();
            for (int w = 0; w < writers; w++) threads[w].join();
            stop.set(true);
            for (int r = 0; r < readers; r++) threads[writers + r].join();
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertEquals(writers * 20_000L, failedPuts.get());
            assertTrue(reads.get() > 0);
            for (int w = 0; w < writers; w++) {
                for (int k = 0; k < keys; k++) assertEquals(last[w][k], m.get((long) w * keys + k));
            }
        }
    }

    private static void check(long key, Long v) {
        if (v == null || v < 0) throw new AssertionError("key " + key + " read " + (v == null ? "no value" : v == HalfWritingCodec.TORN ? "a torn value" : "a poison value " + v));
    }
}
