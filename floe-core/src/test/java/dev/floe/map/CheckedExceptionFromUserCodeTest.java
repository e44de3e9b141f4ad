package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * User code that lets a checked exception out (a sneaky throw: Kotlin, Lombok's
 * {@code @SneakyThrows}, a rethrow through a generic helper) gets the same clean-up as one that
 * throws an unchecked exception: a zero-copy writer's writes are undone, its buffer dies and a
 * grown copy is freed; a value serializer's partial bytes are replaced by the previous value and
 * an insert that failed leaves nothing allocated. Until 2026-11-24 the map caught only
 * {@code RuntimeException} and {@code Error} around user code, and every one of these failed.
 */
class CheckedExceptionFromUserCodeTest {
    private static final AtomicInteger NAMES = new AtomicInteger();

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    private static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 30).jmx(false)
                .name("checked-throw-" + NAMES.incrementAndGet()).build();
    }

    @Test
    void aWriterThatThrowsACheckedExceptionChangesNothing() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).build()) {
            m.put(1L, new byte[8]);
            Throwable t = assertThrows(Throwable.class, () -> m.zc().computeIfPresent(1L, w -> {
                w.putLong(0, 42);
                throw sneaky(new IOException("checked"));
            }));
            assertEquals(IOException.class, t.getClass());
            assertArrayEquals(new byte[8], m.get(1L), "the writer's write was not undone");
        }
    }

    @Test
    void theBufferOfAWriterThatThrewACheckedExceptionIsDead() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).build()) {
            m.put(1L, new byte[8]);
            AtomicReference<OakWriteBuffer> kept = new AtomicReference<>();
            assertThrows(Throwable.class, () -> m.zc().putIfAbsentComputeIfPresent(1L, new byte[8], w -> {
                kept.set(w);
                throw sneaky(new IOException("checked"));
            }));
            // the value is unlocked now; a buffer kept past its writer must refuse
            assertThrows(IllegalStateException.class, () -> kept.get().putLong(0, 7), "escaped buffer still writable");
        }
    }

    @Test
    void aGrownCopyOfAWriterThatThrewACheckedExceptionIsFreed() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).nova(nova).build();
            m.put(1L, new byte[8]);
            nova.reclaimNow();
            long live = a.stats().liveBytes();
            assertThrows(Throwable.class, () -> m.zc().computeIfPresent(1L, w -> {
                w.resize(100_000);
                throw sneaky(new IOException("checked"));
            }));
            nova.reclaimNow();
            assertEquals(live, a.stats().liveBytes(), "the grown copy leaked");
            m.close();
        }
    }

    /** Bytes; a value whose first byte is 13 writes that byte, then fails with a checked exception. */
    static final class Failing implements OakSerializer<byte[]> {
        @Override
        public void serialize(byte[] v, MemorySegment target) {
            OakCodecs.BYTES.serialize(v, target);
            if (v.length > 0 && v[0] == 13) throw sneaky(new IOException("disk full"));
        }

        @Override
        public byte[] deserialize(MemorySegment source) {
            return OakCodecs.BYTES.deserialize(source);
        }

        @Override
        public int sizeOf(byte[] v) {
            return OakCodecs.BYTES.sizeOf(v);
        }
    }

    @Test
    void aLegacyPutWhoseSerializerThrowsACheckedExceptionKeepsTheMapping() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, new Failing(), OakCodecs.LONG).build()) {
            m.put(1L, new byte[] {1, 2, 3, 4});
            Throwable t = assertThrows(Throwable.class, () -> m.put(1L, new byte[] {13, 0, 0, 0}));
            assertEquals(IOException.class, t.getClass());
            assertArrayEquals(new byte[] {1, 2, 3, 4}, m.get(1L), "the failed put's partial bytes stayed");
        }
    }

    @Test
    void anInsertWhoseSerializerThrowsACheckedExceptionLeavesNothingAllocated() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, new Failing(), OakCodecs.LONG).nova(nova).build();
            m.put(1L, new byte[] {1});
            nova.reclaimNow();
            long live = a.stats().liveBytes();
            for (int i = 0; i < 100; i++) {
                assertThrows(Throwable.class, () -> m.zc().put(3L, new byte[] {13, 1, 2}));
            }
            nova.reclaimNow();
            assertEquals(live, a.stats().liveBytes(), "value slices of failed inserts leaked");
            m.close();
        }
    }
}
