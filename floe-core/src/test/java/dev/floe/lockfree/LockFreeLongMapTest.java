package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Combinators;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sequential semantics of both structures under every scheme, against a {@link TreeMap}. */
class LockFreeLongMapTest {

    static Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return Stream.of("list", "hash").flatMap(k -> Schemes.NAMES.stream()
                .map(s -> org.junit.jupiter.params.provider.Arguments.of(k, s)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void insertRemoveContainsGetBehaveLikeAMap(String kind, String scheme) {
        try (FloeAllocator alloc = Schemes.allocator();
             LockFreeLongMap m = Schemes.structure(kind, Schemes.of(scheme, alloc, 4), 100)) {
            assertTrue(m.insert(5, 50));
            assertFalse(m.insert(5, 51), "second insert of a present key");
            assertTrue(m.insert(Long.MIN_VALUE, 1));
            assertTrue(m.insert(Long.MAX_VALUE, 2));
            assertTrue(m.insert(-3, 3));
            assertEquals(50, m.get(5, -1));
            assertEquals(1, m.get(Long.MIN_VALUE, -1));
            assertEquals(2, m.get(Long.MAX_VALUE, -1));
            assertEquals(-1, m.get(6, -1));
            assertTrue(m.contains(-3));
            assertEquals(4, m.size());
            assertTrue(m.remove(5));
            assertFalse(m.remove(5), "second remove");
            assertFalse(m.contains(5));
            assertTrue(m.insert(5, 52), "reinsert after remove");
            assertEquals(52, m.get(5, -1));
            assertEquals(4, m.size());
            assertEquals(0, m.incarnationMismatches());
        }
    }

    @Test
    void listKeepsKeysInSignedOrderAcrossManyRetires() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 2);
            try (HarrisMichaelList l = new HarrisMichaelList(rec)) {
                for (long k = 100; k >= -100; k--) assertTrue(l.insert(k, k * 2));
                for (long k = -100; k <= 100; k += 2) assertTrue(l.remove(k));
                for (long k = -100; k <= 100; k++) {
                    assertEquals((k & 1) != 0, l.contains(k), "key " + k);
                    if ((k & 1) != 0) assertEquals(k * 2, l.get(k, 0));
                }
                assertTrue(rec.stats().freed() > 0, "a limbo list of 2 must have freed nodes");
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void closedStructureRefusesEveryOperation(String kind, String scheme) {
        try (FloeAllocator alloc = Schemes.allocator()) {
            LockFreeLongMap m = Schemes.structure(kind, Schemes.of(scheme, alloc, 4), 10);
            m.insert(1, 1);
            m.close();
            assertThrows(IllegalStateException.class, () -> m.insert(2, 2));
            assertThrows(IllegalStateException.class, () -> m.remove(1));
            assertThrows(IllegalStateException.class, () -> m.contains(1));
            assertThrows(IllegalStateException.class, () -> m.get(1, 0));
            assertThrows(IllegalStateException.class, m::size);
            assertThrows(IllegalStateException.class, m::close);
        }
    }

    @Test
    void badArgumentsAreRefused() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            assertThrows(NullPointerException.class, () -> new HarrisMichaelList(null));
            assertThrows(NullPointerException.class, () -> Reclamation.oaVer(null));
            assertThrows(IllegalArgumentException.class, () -> Reclamation.oaBit(alloc, 0));
            assertThrows(IllegalArgumentException.class, () -> new MichaelHashTable(Reclamation.none(alloc), 0));
            assertThrows(IllegalArgumentException.class,
                    () -> new MichaelHashTable(Reclamation.none(alloc), Long.MAX_VALUE / 4));
        }
    }

    @Test
    void hashTableSizesBucketsForLoadFactorThreeQuarters() {
        try (FloeAllocator alloc = Schemes.allocator();
             MichaelHashTable t = new MichaelHashTable(Reclamation.none(alloc), 10_000)) {
            assertEquals(13_334, t.bucketCount());
        }
    }

    /** A random sequence of operations agrees with a TreeMap, for every structure and scheme. */
    @Property(tries = 40)
    void randomSequencesMatchATreeMap(@ForAll("ops") @Size(max = 300) List<long[]> ops,
                                      @ForAll("kinds") String kind, @ForAll("schemes") String scheme) {
        try (FloeAllocator alloc = Schemes.allocator();
             LockFreeLongMap m = Schemes.structure(kind, Schemes.of(scheme, alloc, 3), 16)) {
            TreeMap<Long, Long> model = new TreeMap<>();
            for (long[] op : ops) {
                long k = op[1];
                switch ((int) op[0]) {
                    case 0 -> assertEquals(!model.containsKey(k), m.insert(k, op[2]));
                    case 1 -> assertEquals(model.remove(k) != null, m.remove(k));
                    case 2 -> assertEquals(model.containsKey(k), m.contains(k));
                    default -> assertEquals((long) model.getOrDefault(k, -7L), m.get(k, -7L));
                }
                if (op[0] == 0) model.putIfAbsent(k, op[2]);
            }
            assertEquals(model.size(), m.size());
            assertEquals(0, m.incarnationMismatches());
        }
    }

    @Provide
    Arbitrary<List<long[]>> ops() {
        Arbitrary<long[]> op = Combinators.combine(Arbitraries.longs().between(0, 3),
                Arbitraries.longs().between(-20, 20), Arbitraries.longs())
                .as((a, b, c) -> new long[] {a, b, c});
        return op.list();
    }

    @Provide
    Arbitrary<String> kinds() {
        return Arbitraries.of("list", "hash");
    }

    @Provide
    Arbitrary<String> schemes() {
        return Arbitraries.of(Schemes.NAMES);
    }
}
