package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Contracts of the public API of {@code dev.floe.memory} on inputs outside its documented ranges. */
class AllocatorContractTest {

    /**
     * {@link SizeClasses#classOf} is public and documents {@code 1 <= size <= MAX_SMALL}, but
     * answered class 0 (8-byte blocks) for 0, for every negative size and for sizes that wrap
     * past {@code Long.MAX_VALUE}, and an {@link ArrayIndexOutOfBoundsException} for sizes above
     * {@code MAX_SMALL}: a caller sizing a buffer from it got 8 bytes for a request of -1 or
     * {@code Long.MAX_VALUE}.
     */
    @Test
    void classOfRefusesSizesOutsideTheTable() {
        for (long bad : new long[] {0, -1, -8, Long.MIN_VALUE, SizeClasses.MAX_SMALL + 1L, 1L << 32, Long.MAX_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> SizeClasses.classOf(bad), "classOf(" + bad + ")");
        }
        assertEquals(0, SizeClasses.classOf(1));
        assertEquals(SizeClasses.COUNT - 1, SizeClasses.classOf(SizeClasses.MAX_SMALL));
    }

    @Test
    void blockSizeRefusesClassesOutsideTheTable() {
        for (int bad : new int[] {-1, SizeClasses.COUNT, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> SizeClasses.blockSize(bad), "blockSize(" + bad + ")");
        }
        assertEquals(SizeClasses.MAX_SMALL, SizeClasses.blockSize(SizeClasses.COUNT - 1));
    }
}
