package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The size-class table: every small request maps to the smallest class that fits it. */
class SizeClassesTest {

    /** Exhaustive: every size from 1 to MAX_SMALL is generated exactly once. */
    @Property(tries = SizeClasses.MAX_SMALL + 1, generation = GenerationMode.EXHAUSTIVE)
    void everySmallSizeMapsToTheSmallestClassThatFitsIt(
            @ForAll @IntRange(min = 1, max = SizeClasses.MAX_SMALL) int size) {
        int c = SizeClasses.classOf(size);
        assertTrue(c >= 0 && c < SizeClasses.COUNT, "class " + c + " of size " + size + " out of range");
        int block = SizeClasses.blockSize(c);
        assertTrue(block >= size, "size " + size + " got class " + c + " of only " + block + " bytes");
        if (c > 0) {
            assertTrue(SizeClasses.blockSize(c - 1) < size,
                    "size " + size + " got class " + c + " but class " + (c - 1) + " ("
                            + SizeClasses.blockSize(c - 1) + " bytes) fits it");
        }
    }

    /** Internal fragmentation above 64 B is below a quarter of the block. */
    @Property(tries = SizeClasses.MAX_SMALL + 1, generation = GenerationMode.EXHAUSTIVE)
    void wasteIsBelowAQuarterAbove64Bytes(@ForAll @IntRange(min = 65, max = SizeClasses.MAX_SMALL) int size) {
        int block = SizeClasses.blockSize(SizeClasses.classOf(size));
        long waste = block - size;
        assertTrue(waste * 4 < block, "size " + size + " wastes " + waste + " of a " + block + "-byte block");
        assertTrue(waste * 4 < size, "size " + size + " wastes " + waste + " bytes, 25% or more of the request");
    }

    /** Below 64 B blocks step by 8, so a request wastes less than 8 bytes. */
    @Property(tries = 65, generation = GenerationMode.EXHAUSTIVE)
    void wasteIsBelow8BytesUpTo64Bytes(@ForAll @IntRange(min = 1, max = 64) int size) {
        int block = SizeClasses.blockSize(SizeClasses.classOf(size));
        assertTrue(block - size < 8, "size " + size + " got a " + block + "-byte block");
    }

    @Example
    void blockSizesAreStrictlyIncreasingMultiplesOf8() {
        int previous = 0;
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            int b = SizeClasses.blockSize(c);
            assertEquals(0, b % 8, "class " + c + " block size " + b + " is not a multiple of 8");
            assertTrue(b > previous, "class " + c + " block size " + b + " does not grow past " + previous);
            previous = b;
        }
    }

    @Example
    void everyClassIsTheClassOfItsOwnBlockSize() {
        for (int c = 0; c < SizeClasses.COUNT; c++) {
            assertEquals(c, SizeClasses.classOf(SizeClasses.blockSize(c)), "class of block size of class " + c);
        }
    }

    @Example
    void tableHasFortyClassesFrom8BytesTo16KiB() {
        assertEquals(40, SizeClasses.COUNT);
        assertEquals(16384, SizeClasses.MAX_SMALL);
        assertEquals(8, SizeClasses.blockSize(0));
        assertEquals(16, SizeClasses.blockSize(1));
        assertEquals(64, SizeClasses.blockSize(7));
        assertEquals(80, SizeClasses.blockSize(8));
        assertEquals(14336, SizeClasses.blockSize(SizeClasses.COUNT - 2));
        assertEquals(SizeClasses.MAX_SMALL, SizeClasses.blockSize(SizeClasses.COUNT - 1));
        assertEquals(0, SizeClasses.classOf(1));
        assertEquals(0, SizeClasses.classOf(8));
        assertEquals(1, SizeClasses.classOf(9));
        assertEquals(SizeClasses.COUNT - 1, SizeClasses.classOf(SizeClasses.MAX_SMALL));
        assertEquals(SizeClasses.COUNT - 1, SizeClasses.classOf(SizeClasses.MAX_SMALL - 2047));
        assertEquals(SizeClasses.COUNT - 2, SizeClasses.classOf(SizeClasses.MAX_SMALL - 2048));
    }
}
