package dev.floe.memory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link Region#getBits}: the same bits as a view of the range, at any alignment, in both region modes. */
class RegionFieldReadTest {
    private static final long SIZE = 64L << 20, UNIT = 1L << 20;

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void fieldsReadTheSameBitsAsAView(RegionMode mode) {
        try (Region r = Region.open(SIZE, UNIT, mode)) {
            r.commit(0, 2 * UNIT);
            MemorySegment view = r.slice(0, 2 * UNIT);
            SplittableRandom rnd = new SplittableRandom(5);
            for (long i = 0; i < 2 * UNIT; i += 8) view.set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
            for (long at = UNIT - 64; at < UNIT + 64; at++) { // every alignment, across the unit boundary
                assertEquals(view.get(ValueLayout.JAVA_BYTE, at), r.getBits(at, 1), "byte at " + at);
                assertEquals(view.get(ValueLayout.JAVA_SHORT_UNALIGNED, at), r.getBits(at, 2), "short at " + at);
                assertEquals(view.get(ValueLayout.JAVA_INT_UNALIGNED, at), r.getBits(at, 4), "int at " + at);
                assertEquals(view.get(ValueLayout.JAVA_LONG_UNALIGNED, at), r.getBits(at, 8), "long at " + at);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RegionMode.class, names = {"MAPPED", "ARENA_CHUNKS"})
    void badWidthsAndOffsetsAreRefused(RegionMode mode) {
        try (Region r = Region.open(SIZE, UNIT, mode)) {
            r.commit(0, UNIT);
            assertThrows(IllegalArgumentException.class, () -> r.getBits(0, 3));
            assertThrows(IndexOutOfBoundsException.class, () -> r.getBits(-1, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> r.getBits(SIZE - 4, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> r.getBits(SIZE, 1));
        }
    }
}
