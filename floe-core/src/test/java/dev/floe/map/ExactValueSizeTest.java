package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.MemoryStats;
import dev.floe.reclaim.Nova;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link OakMap.Builder#exactValueSize}: values of one size take blocks of exactly their size. */
class ExactValueSizeTest {

    private static final int VALUE = 1064; // the rollup benchmark's row: 1,088-byte blocks, 1,280 without the class

    private static byte[] value(int size, int fill) {
        byte[] v = new byte[size];
        Arrays.fill(v, (byte) fill);
        return v;
    }

    private static long liveBlocksOf(FloeAllocator a, int blockSize) {
        return a.stats().classes().stream().filter(c -> c.blockSize() == blockSize)
                .mapToLong(MemoryStats.ClassStats::liveBlocks).sum();
    }

    @Test
    void valueBlockBytesIsTheValuePlusTheMapsAndNovasHeaders() {
        assertEquals(1088, OakMap.valueBlockBytes(VALUE, false));
        assertEquals(1096, OakMap.valueBlockBytes(VALUE, true));
        assertEquals(1088, OakMap.valueBlockBytes(VALUE - 7, false), "rounded up to 8-byte blocks");
        assertEquals(24, OakMap.valueBlockBytes(0, false));
        assertEquals(16384, OakMap.valueBlockBytes(16384 - 24, false));
        assertThrows(IllegalArgumentException.class, () -> OakMap.valueBlockBytes(16384 - 23, false));
        assertThrows(IllegalArgumentException.class, () -> OakMap.valueBlockBytes(16384 - 24, true));
        assertThrows(IllegalArgumentException.class, () -> OakMap.valueBlockBytes(-1, false));
    }

    /** With its own allocator the map's values of that size take exact blocks; other sizes, updates and growth work as before. */
    @Test
    void aMapWithItsOwnAllocatorStoresSuchValuesInExactBlocks() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(64 << 20).exactValueSize(VALUE + 4).build(); // BYTES adds a 4-byte length
             OakMap<Long, byte[]> standard = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(64 << 20).build()) {
            for (long k = 0; k < 500; k++) {
                m.put(k, value(VALUE, (int) k));
                standard.put(k, value(VALUE, (int) k));
            }
            int exact = OakMap.valueBlockBytes(VALUE + 4, false);
            assertEquals(1096, exact);
            assertEquals(500L * (1280 - exact), standard.offHeapFootprint() - m.offHeapFootprint(),
                    "each value saves the difference to the standard 1,280-byte block");
            m.put(1L, value(VALUE, 99));                  // in place
            m.put(2L, value(VALUE + 500, 98));            // grows: moves to a standard class
            m.put(600L, value(10, 97));                   // another size: a standard class
            assertArrayEquals(value(VALUE, 99), m.get(1L));
            assertArrayEquals(value(VALUE + 500, 98), m.get(2L));
            assertArrayEquals(value(10, 97), m.get(600L));
            for (long k = 3; k < 500; k++) assertArrayEquals(value(VALUE, (int) k), m.get(k));
        }
    }

    /** A shared allocator must have been built with the class; one that was works, one that was not is refused. */
    @Test
    void aSharedAllocatorMustHaveTheClass() {
        int block = OakMap.valueBlockBytes(VALUE, false);
        try (FloeAllocator with = FloeAllocator.builder().regionSize(1L << 30).jmx(false).exactSizeClasses(block).build();
             FloeAllocator without = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, new FixedBytes(), OakCodecs.LONG)
                    .nova(new Nova(with)).exactValueSize(VALUE).build()) {
                for (long k = 0; k < 100; k++) m.put(k, value(VALUE, (int) k));
                assertEquals(100, liveBlocksOf(with, block));
                assertArrayEquals(value(VALUE, 7), m.get(7L));
            }
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> OakMap.builder(OakCodecs.LONG, new FixedBytes(), OakCodecs.LONG).nova(new Nova(without)).exactValueSize(VALUE).build());
            assertTrue(e.getMessage().contains("exactSizeClasses(" + block + ")"), e.getMessage());
            assertThrows(IllegalStateException.class,
                    () -> OakMap.builder(OakCodecs.LONG, new FixedBytes(), OakCodecs.LONG).exactValueSize(VALUE).build(),
                    "the process-wide allocator has no exact classes");
            assertThrows(IllegalStateException.class,
                    () -> OakMap.builder(OakCodecs.LONG, new FixedBytes(), OakCodecs.LONG).nova(new Nova(with, 64, true)).exactValueSize(VALUE).build(),
                    "magic-number mode needs a block 8 bytes larger");
            assertThrows(IllegalArgumentException.class,
                    () -> OakMap.builder(OakCodecs.LONG, new FixedBytes(), OakCodecs.LONG).exactValueSize(20_000));
        }
    }

    /** Values serialized as their bytes alone (no length), so a value of n bytes is n serialized bytes. */
    private static final class FixedBytes implements OakSerializer<byte[]> {
        @Override
        public void serialize(byte[] v, java.lang.foreign.MemorySegment target) {
            java.lang.foreign.MemorySegment.copy(v, 0, target, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, v.length);
        }

        @Override
        public byte[] deserialize(java.lang.foreign.MemorySegment source) {
            return source.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }

        @Override
        public int sizeOf(byte[] v) {
            return v.length;
        }
    }
}
