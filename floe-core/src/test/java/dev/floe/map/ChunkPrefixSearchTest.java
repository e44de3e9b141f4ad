package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link Chunk#prefixSearch} (the branch-free binary search over the flipped dense prefixes)
 * against a linear scan, on sorted prefixes with duplicates, both signs (unsigned order: a
 * negative long is a large prefix) and every size from an empty sorted prefix up: the first entry
 * with the probe's prefix, else {@code -(pred + 1)} with pred the last entry below it.
 */
class ChunkPrefixSearchTest {

    @Property(tries = 3000)
    void agreesWithALinearScan(@ForAll("prefixes") List<Long> values, @ForAll("probes") long probe) {
        long[] sorted = values.stream().mapToLong(Long::longValue).toArray();
        // unsigned order
        for (int i = 0; i < sorted.length; i++) sorted[i] ^= Long.MIN_VALUE;
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) sorted[i] ^= Long.MIN_VALUE;

        Chunk c = new Chunk(null, Math.max(1, sorted.length), sorted.length);
        for (int e = 1; e <= sorted.length; e++) c.fill(e, 0, 0, sorted[e - 1]);

        int expected = 0, below = 0;
        for (int e = 1; e <= sorted.length; e++) {
            int cmp = Long.compareUnsigned(sorted[e - 1], probe);
            if (cmp == 0) {
                expected = e;
                break;
            }
            if (cmp < 0) below = e;
        }
        if (expected == 0) expected = -(below + 1);
        assertEquals(expected, c.prefixSearch(probe));
    }

    /** Prefixes from a small domain (so duplicates and probe hits are common), both signs. */
    private static final long[] DOMAIN = {0, 1, 2, 3, 5, 8, 100, Long.MAX_VALUE, Long.MIN_VALUE, -2, -1};

    @Provide
    Arbitrary<List<Long>> prefixes() {
        return Arbitraries.of(box(DOMAIN)).list().ofMaxSize(70);
    }

    @Provide
    Arbitrary<Long> probes() {
        return Arbitraries.oneOf(Arbitraries.of(box(DOMAIN)), Arbitraries.longs());
    }

    private static Long[] box(long[] a) {
        return Arrays.stream(a).boxed().toArray(Long[]::new);
    }
}
