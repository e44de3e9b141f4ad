package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The bit layouts of {@link SafePointer} and {@link SliceHeader} (their class comments): fields
 * round-trip, the deleted bit is independent of the rest, and "header matches pointer" holds
 * exactly for the header written at allocation with the same version and no deleted bit.
 */
class SafePointerLayoutPropertyTest {
    private static final int MAX_VERSION = (1 << 27) - 1;

    @Provide
    Arbitrary<Long> headerOffsets() {
        // 8-byte aligned offsets below 2^39 (512 GiB, what 36 reference bits address)
        return Arbitraries.longs().between(0, (SafePointer.MAX_OFFSET >>> 3) - 1).map(x -> x << 3);
    }

    @Provide
    Arbitrary<Integer> versions() {
        return Arbitraries.integers().between(1, MAX_VERSION);
    }

    @Property
    void pointerFieldsRoundTrip(@ForAll("headerOffsets") long offset, @ForAll("versions") int version) {
        long p = SafePointer.of(offset, version);
        assertEquals(offset, SafePointer.headerOffset(p));
        assertEquals(version, SafePointer.version(p));
        assertFalse(SafePointer.isDeleted(p));
        long d = SafePointer.markDeleted(p);
        assertTrue(SafePointer.isDeleted(d));
        assertEquals(offset, SafePointer.headerOffset(d), "marking deleted keeps the reference");
        assertEquals(version, SafePointer.version(d), "marking deleted keeps the version");
        assertEquals(d, SafePointer.markDeleted(d), "marking is idempotent");
        assertTrue(p != SafePointer.NULL, "a valid pointer is never NULL");
    }

    @Property
    void headerFieldsRoundTrip(@ForAll("versions") int version,
                               @ForAll @LongRange(min = 0, max = (1L << 35) - 1) long length,
                               @ForAll boolean run) {
        long h = SliceHeader.of(version, length) | (run ? SliceHeader.RUN : 0);
        assertEquals(length, SliceHeader.length(h));
        assertEquals(run, SliceHeader.hasRun(h));
        assertEquals(length + (run ? 8 : 0), SliceHeader.blockBytes(h), "the run word follows the data");
        assertFalse(SliceHeader.isDeleted(h));
        assertTrue(SliceHeader.isDeleted(h | SliceHeader.DELETED));
        assertEquals(length, SliceHeader.length(h | SliceHeader.DELETED), "the deleted bit keeps the length");
        assertEquals(run, SliceHeader.hasRun(h | SliceHeader.DELETED), "the deleted bit keeps the run bit");
    }

    @Property
    void headerMatchesExactlyThePointerOfItsIncarnation(@ForAll("headerOffsets") long offset,
                                                        @ForAll("versions") int version,
                                                        @ForAll("versions") int otherVersion,
                                                        @ForAll @LongRange(min = 0, max = Nova.MAX_SLICE) long length,
                                                        @ForAll boolean run) {
        long p = SafePointer.of(offset, version);
        long h = SliceHeader.of(version, length) | (run ? SliceHeader.RUN : 0); // the run bit is not state
        assertTrue(SliceHeader.matches(h, p), "the live header matches its pointer");
        assertFalse(SliceHeader.matches(h | SliceHeader.DELETED, p), "a deleted header matches no pointer");
        assertFalse(SliceHeader.matches(h, SafePointer.markDeleted(p)), "a deleted pointer matches nothing");
        assertFalse(SliceHeader.matches(h | SliceHeader.DELETED, SafePointer.markDeleted(p)),
                "deleted pointer vs deleted header: still no match");
        long other = SliceHeader.of(otherVersion, length) | (run ? SliceHeader.RUN : 0);
        assertEquals(version == otherVersion, SliceHeader.matches(other, p), "only the same version matches");
        assertFalse(SliceHeader.matches(0L, p), "zeroed memory (version 0) never matches");
    }

    @Property
    void versionZeroNeverMatchesAnyHeader(@ForAll long header, @ForAll("headerOffsets") long offset) {
        long p = SafePointer.of(offset, 0);
        if (SliceHeader.matches(header, p)) {
            // only a header with version 0 and no deleted bit could match: Nova rejects version 0
            // before it touches memory, and never writes such a header
            assertEquals(0L, header & SliceHeader.STATE_MASK);
        }
    }

    @Property
    void randomLongsDecodeConsistently(@ForAll long x) {
        // every long decodes to some (offset, version, deleted) that re-encodes to itself
        long rebuilt = SafePointer.of(SafePointer.headerOffset(x), SafePointer.version(x))
                | (SafePointer.isDeleted(x) ? SafePointer.DELETED : 0);
        assertEquals(x, rebuilt);
        assertEquals(0, SafePointer.headerOffset(x) & 7, "offsets are 8-byte aligned");
        assertTrue(SafePointer.headerOffset(x) < SafePointer.MAX_OFFSET);
        assertTrue(SafePointer.version(x) >= 0 && SafePointer.version(x) <= MAX_VERSION);
    }

    @Property
    void eraVersionsWrapModulo2To27AndSkipZero(@ForAll @IntRange(min = 0, max = 3) int wraps,
                                               @ForAll @IntRange(min = -2, max = 2) int delta) {
        long era = ((long) wraps << 27) + delta;
        if (era < 1) return;
        EraClock clock = new EraClock();
        clock.era = era; // package-private field: jump straight to the values around each wrap
        long v = era & MAX_VERSION;
        assertEquals(v == 0 ? 1 : (int) v, clock.version());
        assertTrue(clock.version() >= 1 && clock.version() <= MAX_VERSION);
        assertEquals(era + 1, clock.advance());
        assertEquals(era + 1, clock.current());
    }

    @Example
    void nullIsNeverValid() {
        assertEquals(0, SafePointer.version(SafePointer.NULL));
        assertEquals(0, SafePointer.headerOffset(SafePointer.NULL));
        assertFalse(SafePointer.isDeleted(SafePointer.NULL));
    }

    @Example
    void pointerAndHeaderShareTheVersionAndDeletedBitPositions() {
        assertEquals(SafePointer.DELETED, SliceHeader.DELETED);
        assertEquals(~(SliceHeader.LENGTH_MASK | SliceHeader.RUN), SliceHeader.STATE_MASK,
                "the state is the version and deleted bit; the run bit and length are not");
        assertEquals(SafePointer.REF_MASK, SliceHeader.LENGTH_MASK | SliceHeader.RUN, "36-bit reference; run bit and 35-bit length");
        assertEquals(SafePointer.VERSION_SHIFT, 37);
        assertTrue(Nova.MAX_SLICE <= SliceHeader.LENGTH_MASK);
    }
}
