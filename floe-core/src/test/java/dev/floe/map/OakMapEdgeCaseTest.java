package dev.floe.map;

import static dev.floe.map.OakMapContractTest.same;
import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.Spliterator;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Edge cases of {@link OakMap}'s public API that {@link OakMapContractTest} and
 * {@link ZeroCopyMapTest} do not reach, each pinned against {@link ConcurrentSkipListMap} where
 * the behaviour is the skip list's: spliterators and streams of the views while the map changes,
 * values locked by user code that failed (replaceAll, equals, serializers throwing errors), the
 * order of argument checks, conditional bulk removal, comparators shared by views, the closed
 * map, zero-copy entries, buffer bounds, and serializers that break their own contract.
 */
class OakMapEdgeCaseTest {
    private static OakMap<Long, Long> newMap(int chunk) {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build();
    }

    private static ConcurrentSkipListMap<Long, Long> oracle(OakMap<Long, Long> m, long from, long to, long step) {
        ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
        for (long k = from; k < to; k += step) {
            o.put(k, k * 10);
            m.put(k, k * 10);
        }
        return o;
    }

    /** Pairs of corresponding views of the oracle and the Oak map, named. */
    private static Map<String, Function<ConcurrentNavigableMap<Long, Long>, ConcurrentNavigableMap<Long, Long>>> views() {
        Map<String, Function<ConcurrentNavigableMap<Long, Long>, ConcurrentNavigableMap<Long, Long>>> v = new LinkedHashMap<>();
        v.put("map", x -> x);
        v.put("subMap", x -> x.subMap(10L, 60L));
        v.put("descendingMap", ConcurrentNavigableMap::descendingMap);
        v.put("headMap.descendingMap", x -> x.headMap(50L, true).descendingMap());
        v.put("descendingMap.subMap.tailMap", x -> x.descendingMap().subMap(70L, false, 5L, true).tailMap(40L));
        return v;
    }

    /** Runs {@code op} in another thread and fails if it does not end soon (a value left locked makes it spin forever). */
    private static <T> T soon(String what, Supplier<T> op) {
        return assertTimeoutPreemptively(Duration.ofSeconds(5), op::get, what + ": a value was left locked");
    }

    // ---- spliterators and streams ----------------------------------------------------------------

    private static final int KEY_CHARACTERISTICS = Spliterator.ORDERED | Spliterator.DISTINCT | Spliterator.SORTED
            | Spliterator.NONNULL | Spliterator.CONCURRENT;
    private static final int VALUE_CHARACTERISTICS = Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.CONCURRENT;

    /**
     * ConcurrentNavigableMap's views are weakly consistent: their spliterators report CONCURRENT
     * (ConcurrentSkipListMap's: keys and entries CONCURRENT, DISTINCT, SORTED, ORDERED, NONNULL;
     * values CONCURRENT, ORDERED, NONNULL) and never SIZED, whose exact size a concurrent change
     * would make a lie. A SORTED spliterator's comparator (also in the prefix a split hands out)
     * orders the elements as they come.
     */
    @Test
    void viewSpliteratorsAreConcurrentSortedAndUnsizedLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 80, 1);
            assertEquals(KEY_CHARACTERISTICS, o.keySet().spliterator().characteristics());
            assertEquals(KEY_CHARACTERISTICS, o.entrySet().spliterator().characteristics());
            assertEquals(VALUE_CHARACTERISTICS, o.values().spliterator().characteristics());
            views().forEach((name, f) -> {
                ConcurrentNavigableMap<Long, Long> v = f.apply(m);
                List<Long> keys = new ArrayList<>(f.apply(o).keySet());
                Map<String, Collection<?>> sets = new LinkedHashMap<>();
                sets.put("keySet", v.keySet());
                sets.put("navigableKeySet", v.navigableKeySet());
                sets.put("descendingKeySet", v.descendingKeySet());
                sets.put("keySet.headSet", v.navigableKeySet().headSet(keys.get(keys.size() / 2), true));
                sets.put("entrySet", v.entrySet());
                sets.put("values", v.values());
                sets.forEach((setName, set) -> {
                    String w = name + "." + setName;
                    int expected = setName.equals("values") ? VALUE_CHARACTERISTICS : KEY_CHARACTERISTICS;
                    Spliterator<?> s = set.spliterator();
                    assertEquals(expected, s.characteristics(), w + " characteristics");
                    if (setName.equals("values")) return;
                    assertSortedBy(w, s.getComparator(), new ArrayList<>(set));
                    Spliterator<?> prefix = set.spliterator().trySplit();
                    assertNotNull(prefix, w + " splits");
                    assertTrue(prefix.hasCharacteristics(Spliterator.SORTED), w + " prefix is sorted");
                    List<Object> inPrefix = new ArrayList<>();
                    prefix.forEachRemaining(inPrefix::add);
                    assertSortedBy(w + " prefix", prefix.getComparator(), inPrefix);
                });
                assertEquals(keys, v.keySet().parallelStream().toList(), name + ": a parallel stream keeps the order");
                assertEquals(keys.reversed(), v.descendingKeySet().stream().toList(), name);
            });
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void assertSortedBy(String what, Comparator c, List<?> elements) {
        assertTrue(elements.size() > 1, what + ": too few elements to check an order");
        for (int i = 1; i < elements.size(); i++) {
            Object a = elements.get(i - 1), b = elements.get(i);
            int cmp = c == null ? ((Comparable) a).compareTo(b) : c.compare(a, b);
            assertTrue(cmp < 0, what + ": the spliterator's comparator orders " + a + " before " + b);
        }
    }

    /**
     * A stream over a view collects whatever the weakly consistent scan returns, also when the map
     * changes under it (here: by the stream's own peek, deterministically, far enough ahead of the
     * scan that no read-ahead can tell). An exactly SIZED spliterator made toArray fail ("Accept
     * exceeded fixed size" / "End size is less than fixed size").
     */
    @Test
    void streamsOfViewsCollectWhileTheMapChangesLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 60, 2);
            same("keySet stream inserting ahead", o, m, x -> Arrays.asList(x.keySet().stream()
                    .peek(k -> { if (k < 1000) x.put(k + 1000, (k + 1000) * 10); }).toArray()));
            same("entrySet stream removing ahead", o, m, x -> Arrays.asList(x.entrySet().stream()
                    .peek(e -> x.remove(e.getKey() + 40)).map(Map.Entry::getKey).toArray()));
            same("values stream of a sub-view inserting ahead", o, m, x -> x.subMap(0L, 5000L).values().stream()
                    .peek(v -> { if (v < 10_000) x.put(v / 10 + 2000, (v / 10 + 2000) * 10); }).toList());
            same("descending keys stream removing ahead", o, m, x -> x.descendingKeySet().stream()
                    .peek(k -> x.remove(k - 40)).toList());
            same("contents", o, m, x -> new ArrayList<>(x.entrySet()));
            same("count", o, m, x -> x.keySet().stream().count());
        }
    }

    /**
     * The zero-copy sets stream while the map changes too: CONCURRENT, never SIZED. (Only keys far
     * ahead or behind change: a scan's buffer of a value removed after the scan looked ahead at it
     * reports the removal, as documented.)
     */
    @Test
    void zeroCopySetsStreamWhileTheMapChanges() {
        try (OakMap<Long, Long> m = newMap(4)) {
            for (long k = 0; k < 40; k += 2) m.put(k, k);
            ZeroCopyMap<Long, Long> zc = m.zc();
            List<Collection<?>> sets = List.of(zc.keySet(), zc.values(), zc.entrySet(), zc.keyStreamSet(),
                    zc.valueStreamSet(), zc.entryStreamSet(), zc.descendingMap().keySet(), zc.subMap(4L, true, 30L, false).values());
            for (Collection<?> s : sets) {
                Spliterator<?> sp = s.spliterator();
                assertTrue(sp.hasCharacteristics(Spliterator.CONCURRENT), "zero-copy spliterators are CONCURRENT");
                assertFalse(sp.hasCharacteristics(Spliterator.SIZED), "zero-copy spliterators are not SIZED");
            }
            List<Long> seen = zc.keySet().stream().map(b -> b.getLong(0)).peek(k -> {
                if (k < 100) m.put(k + 101, k);
            }).toList();
            assertEquals(new ArrayList<>(m.keySet()), seen);
            List<Long> before = new ArrayList<>(m.keySet());
            long[] removed = zc.entryStreamSet().stream().mapToLong(e -> e.getKey().getLong(0)).peek(m::remove).toArray();
            assertEquals(before, Arrays.stream(removed).boxed().toList(), "removing behind the scan");
            assertTrue(m.isEmpty());
        }
    }

    // ---- values left locked by user code that failed ---------------------------------------------

    /**
     * replaceAll runs its function under each value's lock; a function that throws must release it
     * (the skip list leaves the map usable, the entries before the failure replaced).
     */
    @Test
    void aReplaceAllFunctionThatThrowsLeavesNoValueLocked() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 20, 1);
            for (ConcurrentNavigableMap<Long, Long> x : List.of(o, m)) {
                assertThrows(ArithmeticException.class, () -> x.subMap(2L, 15L).replaceAll((k, v) -> {
                    if (k == 7) throw new ArithmeticException("fails on 7");
                    return v + 1;
                }));
            }
            assertEquals(70L, soon("get", () -> m.get(7L)));
            assertEquals(70L, soon("put", () -> m.put(7L, 71L)));
            assertEquals(72L, soon("compute", () -> m.compute(7L, (k, v) -> v + 1)));
            assertTrue(soon("zero-copy compute", () -> m.zc().computeIfPresent(7L, w -> w.putLong(0, 70L))));
            assertEquals(o, m);
            assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
        }
    }

    /** remove(k, v) compares under the value's lock; an equals that throws must release it. */
    @Test
    void aConditionalRemoveWhoseEqualsThrowsLeavesNoValueLocked() {
        Object hostile = new Object() {
            @Override
            public boolean equals(Object other) {
                throw new ClassCastException("cannot compare");
            }

            @Override
            public int hashCode() {
                return 0;
            }
        };
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 10, 1);
            same("remove(k, hostile)", o, m, x -> x.remove(3L, hostile));
            same("entrySet.remove", o, m, x -> x.entrySet().remove(new AbstractMap.SimpleImmutableEntry<>(4L, hostile)));
            assertEquals(30L, soon("get", () -> m.get(3L)));
            assertEquals(40L, soon("remove", () -> m.remove(4L)));
            assertEquals(30L, soon("put", () -> m.put(3L, 31L)));
        }
    }

    /** A value codec that fails on chosen values: throws an Error, or writes past the size it declared. */
    private static final class FaultyCodec implements OakSerializer<Long> {
        @Override
        public void serialize(Long v, MemorySegment target) {
            if (v == ERROR) throw new AssertionError("serializer failed with an error");
            target.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, v);
            if (v == OVERRUN) target.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, v); // past sizeOf
        }

        @Override
        public Long deserialize(MemorySegment source) {
            return source.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        }

        @Override
        public int sizeOf(Long v) {
            return v == NEGATIVE ? -1 : 8;
        }

        static final long ERROR = -1, OVERRUN = -2, NEGATIVE = -3;
    }

    /**
     * An Error thrown by the value serializer while a present value is locked (put, replace,
     * compute, merge) must release the lock like a RuntimeException does.
     */
    @Test
    void anErrorFromTheValueSerializerLeavesNoValueLocked() {
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, new FaultyCodec(), OakCodecs.LONG).maxChunkEntries(4).build()) {
            for (long k = 0; k < 10; k++) m.put(k, k);
            long e = FaultyCodec.ERROR;
            assertThrows(AssertionError.class, () -> m.put(1L, e));
            assertThrows(AssertionError.class, () -> m.zc().put(2L, e));
            assertThrows(AssertionError.class, () -> m.replace(3L, e));
            assertThrows(AssertionError.class, () -> m.replace(4L, 4L, e));
            assertThrows(AssertionError.class, () -> m.compute(5L, (k, v) -> e));
            assertThrows(AssertionError.class, () -> m.merge(6L, 0L, (a, b) -> e));
            assertThrows(AssertionError.class, () -> m.put(100L, e), "insert");
            for (long k = 1; k <= 6; k++) {
                long key = k;
                assertEquals(k, soon("get " + k, () -> m.get(key)));
                assertEquals(k, soon("put " + k, () -> m.put(key, key + 1)));
            }
            assertFalse(m.containsKey(100L));
            assertEquals(10, m.size());
        }
    }

    // ---- argument checks -------------------------------------------------------------------------

    /**
     * ConcurrentMap.merge, which the skip list's sub-views use, rejects a null value or function
     * before it looks at the key: NullPointerException even for a key outside the view.
     */
    @Test
    void mergeRejectsNullsBeforeCheckingTheKeyRangeLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 30, 1);
            views().forEach((name, f) -> {
                for (long k : new long[] {-5, 3, 55, 200}) {
                    String w = name + " key " + k + ": ";
                    same(w + "merge(k, null, f)", () -> f.apply(o).merge(k, null, Long::sum), () -> f.apply(m).merge(k, null, Long::sum));
                    same(w + "merge(k, v, null)", () -> f.apply(o).merge(k, 1L, null), () -> f.apply(m).merge(k, 1L, null));
                    same(w + "compute(k, null)", () -> f.apply(o).compute(k, null), () -> f.apply(m).compute(k, null));
                    same(w + "computeIfAbsent(k, null)", () -> f.apply(o).computeIfAbsent(k, null), () -> f.apply(m).computeIfAbsent(k, null));
                    same(w + "computeIfPresent(k, null)", () -> f.apply(o).computeIfPresent(k, null), () -> f.apply(m).computeIfPresent(k, null));
                    same(w + "remove(k, null)", () -> f.apply(o).remove(k, null), () -> f.apply(m).remove(k, null));
                    same(w + "entrySet.contains(k=null)", () -> f.apply(o).entrySet().contains(new AbstractMap.SimpleEntry<>(k, null)),
                            () -> f.apply(m).entrySet().contains(new AbstractMap.SimpleEntry<>(k, null)));
                    same(w + "entrySet.remove(k=null)", () -> f.apply(o).entrySet().remove(new AbstractMap.SimpleEntry<>(k, null)),
                            () -> f.apply(m).entrySet().remove(new AbstractMap.SimpleEntry<>(k, null)));
                    same(w + "getOrDefault", () -> f.apply(o).getOrDefault(k, -1L), () -> f.apply(m).getOrDefault(k, -1L));
                }
            });
            assertEquals(o, m);
        }
    }

    // ---- conditional bulk removal ----------------------------------------------------------------

    /**
     * values().removeIf and entrySet().removeIf remove a mapping only if it still holds the value
     * the predicate accepted (the skip list removes with remove(key, value)): a value replaced
     * between the test and the removal stays. The predicate replaces it itself here, standing in
     * for a concurrent writer.
     */
    @Test
    void removeIfRemovesOnlyMappingsThatStillHoldTheTestedValueLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 40, 1);
            views().forEach((name, f) -> {
                same(name + ": values().removeIf", o, m, x -> f.apply(x).values().removeIf(v -> {
                    long k = v / 10;
                    if (k % 3 == 0) x.put(k, v + 1); // rewritten between test and removal: must stay
                    return k % 3 != 2 && v % 10 == 0;
                }));
                same(name + ": contents after values().removeIf", o, m, x -> new ArrayList<>(x.entrySet()));
                same(name + ": entrySet().removeIf", o, m, x -> f.apply(x).entrySet().removeIf(e -> {
                    if (e.getKey() % 2 == 0) x.put(e.getKey(), e.getValue() + 3);
                    return e.getValue() % 10 == 1;
                }));
                same(name + ": contents after entrySet().removeIf", o, m, x -> new ArrayList<>(x.entrySet()));
                same(name + ": keySet().removeIf", o, m, x -> f.apply(x).keySet().removeIf(k -> k % 7 == 0));
                same(name + ": removeIf(null)", o, m, x -> f.apply(x).values().removeIf(null));
            });
            assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
        }
    }

    // ---- comparators -----------------------------------------------------------------------------

    /**
     * The skip list's views share the map's comparator: equal across views of the same order,
     * and a descending view's comparator reversed is the map's.
     */
    @Test
    void viewsOfOneOrderHaveEqualComparatorsLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>(Comparator.<Long>naturalOrder());
            List<Function<ConcurrentNavigableMap<Long, Long>, Object>> facts = List.of(
                    x -> x.comparator().equals(x.comparator()),
                    x -> x.comparator().equals(x.subMap(1L, 5L).comparator()),
                    x -> x.comparator().equals(x.navigableKeySet().comparator()),
                    x -> x.comparator().equals(x.tailMap(3L).headMap(9L).keySet().comparator()),
                    x -> x.descendingMap().comparator().equals(x.descendingMap().comparator()),
                    x -> x.descendingMap().comparator().equals(x.headMap(8L).descendingMap().comparator()),
                    x -> x.descendingMap().comparator().equals(x.descendingKeySet().comparator()),
                    x -> x.descendingMap().comparator().reversed().equals(x.comparator()),
                    x -> x.descendingMap().descendingMap().comparator().equals(x.comparator()),
                    x -> x.comparator().equals(x.descendingMap().comparator()));
            for (int i = 0; i < facts.size(); i++) {
                var fact = facts.get(i);
                same("comparator fact " + i, o, m, fact::apply);
            }
        }
    }

    /**
     * A superblock keeps the size class it was carved for (docs/memory.md, invariant 3), so a map
     * with its own budget whose value sizes shift over its life needs address space for the peak
     * of each size class it ever used. Its region was 2 to 4 times the budget (half of it for
     * size classes): at the third size (each filling three quarters of the budget, then
     * cleared), inserts were refused with nothing but the current values live. The region is now
     * 16 to 32 times the budget (address space only), room for a full budget in each of 8 classes.
     */
    @Test
    void aBudgetedMapWhoseValueSizesShiftKeepsInserting() {
        long budget = 16 << 20;
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(budget).build()) {
            for (int size : new int[] {100, 500, 1000, 2000, 4000, 8000, 16000}) {
                byte[] value = new byte[size];
                long n = budget * 3 / 4 / (size + 64);
                for (long k = 0; k < n; k++) m.put(k, value);
                assertEquals(n, m.size(), size + "-byte values");
                m.clear();
            }
        }
    }

    // ---- close -----------------------------------------------------------------------------------

    /**
     * After close every method of the map, its views, open iterators and the zero-copy API throws
     * IllegalStateException: also making a view, comparator(), equals with itself, and hasNext of a
     * zero-copy iterator that had already looked ahead. isClosed, close and the size limits keep
     * working, and the footprint is 0.
     */
    @Test
    void aClosedMapRejectsViewsComparatorsAndStartedZeroCopyIterators() {
        for (boolean ownBudget : new boolean[] {false, true}) {
            OakMap.Builder<Long, Long> b = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(4);
            OakMap<Long, Long> m = ownBudget ? b.budget(4 << 20).build() : b.build();
            for (long k = 0; k < 20; k++) m.put(k, k);
            ZeroCopyMap<Long, Long> zc = m.zc();
            ConcurrentNavigableMap<Long, Long> sub = m.subMap(2L, 9L);
            Iterator<OakReadBuffer> asked = zc.keySet().iterator();
            assertTrue(asked.hasNext());
            Iterator<OakReadBuffer> askedStream = zc.descendingMap().valueStreamSet().iterator();
            assertTrue(askedStream.hasNext());
            Iterator<Long> legacyAsked = sub.keySet().iterator();
            assertTrue(legacyAsked.hasNext());
            m.close();
            m.close();
            Map<String, Runnable> uses = new LinkedHashMap<>();
            uses.put("subMap", () -> m.subMap(1L, 3L));
            uses.put("headMap", () -> m.headMap(1L));
            uses.put("tailMap", () -> m.tailMap(1L, false));
            uses.put("descendingMap", m::descendingMap);
            uses.put("keySet", m::keySet);
            uses.put("navigableKeySet", m::navigableKeySet);
            uses.put("descendingKeySet", m::descendingKeySet);
            uses.put("entrySet", m::entrySet);
            uses.put("values", m::values);
            uses.put("comparator", m::comparator);
            uses.put("equals(itself)", () -> m.equals(m));
            uses.put("sub.subMap", () -> sub.subMap(3L, 4L));
            uses.put("sub.comparator", sub::comparator);
            uses.put("sub.equals(itself)", () -> sub.equals(sub));
            uses.put("keySet spliterator", () -> sub.keySet().spliterator());
            uses.put("zc", m::zc);
            uses.put("zc.subMap", () -> zc.subMap(1L, true, 3L, true));
            uses.put("zc.descendingMap", zc::descendingMap);
            uses.put("zc.keySet", zc::keySet);
            uses.put("zc.valueStreamSet", zc::valueStreamSet);
            uses.put("zc iterator(asked).hasNext", asked::hasNext);
            uses.put("zc stream iterator(asked).hasNext", askedStream::hasNext);
            uses.put("legacy iterator(asked).hasNext", legacyAsked::hasNext);
            uses.put("putAll(empty)", () -> m.putAll(Map.of()));
            uses.put("sub.putAll(empty)", () -> sub.putAll(Map.of()));
            uses.put("sub.remove(out of range, null)", () -> sub.remove(30L, null));
            uses.put("remove(k, null)", () -> m.remove(3L, null));
            assertEquals(List.of(), ClosedMapUses.notRefused(uses), (ownBudget ? "own budget" : "shared allocator") + ": uses of a closed map");
            assertTrue(m.isClosed());
            assertEquals(0, m.offHeapFootprint(), "a closed map holds nothing off-heap");
            assertTrue(m.maxKeySize() > 0 && m.maxValueSize() > 0);
        }
    }

    // ---- zero-copy API ---------------------------------------------------------------------------

    /** Zero-copy entries follow Map.Entry's equals and hashCode: symmetric with other entries, key hash ^ value hash. */
    @Test
    void zeroCopyEntriesFollowMapEntryEqualsAndHashCode() {
        try (OakMap<Long, Long> m = newMap(4)) {
            for (long k = 0; k < 3; k++) m.put(k, k);
            for (Set<Map.Entry<OakReadBuffer, OakReadBuffer>> set : List.of(m.zc().entrySet(), m.zc().entryStreamSet())) {
                Map.Entry<OakReadBuffer, OakReadBuffer> e = set.iterator().next();
                Map.Entry<OakReadBuffer, OakReadBuffer> copy = new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue());
                assertEquals(copy, e);
                assertEquals(e, copy);
                assertEquals(e.getKey().hashCode() ^ e.getValue().hashCode(), e.hashCode());
                assertEquals(copy.hashCode(), e.hashCode());
                assertNotEquals(e, new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getKey()));
                assertThrows(UnsupportedOperationException.class, () -> e.setValue(e.getValue()));
            }
        }
    }

    /**
     * Every typed getter of every kind of read buffer (get, a scan's buffer, a stream buffer's
     * first read from its snapshot, a key buffer, an out-of-line value) and every accessor of the
     * write buffer throws IndexOutOfBoundsException for a field not wholly inside the value, and
     * reads each field that is.
     */
    @Test
    void buffersRejectEveryFieldOutsideTheValue() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(4).build()) {
            byte[] small = new byte[13], large = new byte[20_000];
            Arrays.fill(small, (byte) 1);
            Arrays.fill(large, (byte) 1);
            m.put(1L, small);
            m.put(2L, large);
            Map<String, OakReadBuffer> buffers = new LinkedHashMap<>();
            buffers.put("get", m.zc().get(1L));
            buffers.put("get (out of line)", m.zc().get(2L));
            buffers.put("values scan", m.zc().values().iterator().next());
            buffers.put("key", m.zc().keySet().iterator().next());
            buffers.put("stream (first read)", null);
            buffers.put("stream (out of line, first read)", null);
            for (var entry : buffers.entrySet()) {
                for (int width : new int[] {1, 2, 4, 8}) {
                    for (long off : new long[] {-1, -width, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, 1, 5, 8 - width}) {
                        OakReadBuffer buf = switch (entry.getKey()) {
                            case "stream (first read)" -> m.zc().valueStreamSet().iterator().next();
                            case "stream (out of line, first read)" -> m.zc().tailMap(2L, true).valueStreamSet().iterator().next();
                            default -> entry.getValue();
                        };
                        int size = buf.size();
                        for (long o : new long[] {off, size - width + 1 + Math.max(0, off), size - width - Math.max(0, off)}) {
                            boolean inside = o >= 0 && o + width <= size;
                            int at = (int) o;
                            String w = entry.getKey() + " width " + width + " at " + o + " of " + size;
                            if (o != at) continue;
                            Runnable read = switch (width) {
                                case 1 -> () -> buf.getByte(at);
                                case 2 -> () -> { buf.getShort(at); buf.getChar(at); };
                                case 4 -> () -> { buf.getInt(at); buf.getFloat(at); };
                                default -> () -> { buf.getLong(at); buf.getDouble(at); };
                            };
                            if (inside) read.run();
                            else assertThrows(IndexOutOfBoundsException.class, read::run, w);
                        }
                    }
                }
            }
            for (long key : new long[] {1L, 2L}) {
                m.zc().computeIfPresent(key, w -> {
                    int size = w.size();
                    for (int at : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, size, size - 1, size - 3, size - 7}) {
                        String what = "write buffer at " + at + " of " + size;
                        if (at < 0 || at >= size) {
                            assertThrows(IndexOutOfBoundsException.class, () -> w.getByte(at), what);
                            assertThrows(IndexOutOfBoundsException.class, () -> w.putByte(at, (byte) 9), what);
                        }
                        if (at < 0 || at > size - 2) assertThrows(IndexOutOfBoundsException.class, () -> w.putShort(at, (short) 9), what);
                        if (at < 0 || at > size - 4) assertThrows(IndexOutOfBoundsException.class, () -> w.putInt(at, 9), what);
                        if (at < 0 || at > size - 8) {
                            assertThrows(IndexOutOfBoundsException.class, () -> w.putLong(at, 9L), what);
                            assertThrows(IndexOutOfBoundsException.class, () -> w.getDouble(at), what);
                            assertThrows(IndexOutOfBoundsException.class, () -> w.putDouble(at, 9.0), what);
                        }
                    }
                    assertEquals(size, w.segment().byteSize());
                    assertThrows(IndexOutOfBoundsException.class, () -> w.segment().get(ValueLayout.JAVA_BYTE, size));
                });
            }
            assertArrayEquals(small, m.get(1L), "no failed write changed the value");
            assertArrayEquals(large, m.get(2L), "no failed write changed the value");
            assertEquals(13L, (long) m.zc().get(1L).transform(MemorySegment::byteSize));
        }
    }

    /**
     * A view of the write buffer is valid until the function returns or resizes: one kept across a
     * resize that moved the value (or its private copy, which the next resize frees) must be dead,
     * or it would write into memory that is no longer this value's.
     */
    @Test
    void aWriteViewKeptAcrossAResizeIsDead() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(4).build()) {
            m.put(1L, new byte[] {1, 2, 3});
            m.put(2L, new byte[] {7});
            AtomicReference<String> failure = new AtomicReference<>();
            m.zc().computeIfPresent(1L, w -> {
                MemorySegment before = w.segment();
                w.resize(5000);                      // a private copy
                MemorySegment copy = w.segment();
                w.resize(40_000);                    // another copy; the first one is freed
                for (MemorySegment stale : List.of(before, copy)) {
                    try {
                        stale.set(ValueLayout.JAVA_BYTE, 0, (byte) 99);
                        failure.set("a view kept across a resize still writes");
                    } catch (IllegalStateException expected) {
                        // dead
                    }
                }
                w.segment().set(ValueLayout.JAVA_BYTE, 4999, (byte) 5);
            });
            assertNull(failure.get());
            byte[] v = m.get(1L);
            assertEquals(40_000, v.length);
            assertArrayEquals(new byte[] {1, 2, 3}, Arrays.copyOf(v, 3));
            assertEquals(5, v[4999]);
            assertArrayEquals(new byte[] {7}, m.get(2L));
        }
    }

    /**
     * A value serializer that breaks its contract (writes past the size it declared, declares a
     * negative size, throws an Error) fails the update with a clear exception; an insert leaves
     * nothing allocated and no key behind.
     */
    @Test
    void aValueSerializerThatBreaksItsContractFailsCleanlyWithoutLeaking() {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).name("oak-edge-serializer").build()) {
            Nova nova = new Nova(a, 8);
            try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, new FaultyCodec(), OakCodecs.LONG).nova(nova).maxChunkEntries(4).build()) {
                for (long k = 0; k < 10; k++) m.put(k, k);
                nova.reclaimNow();
                long live = a.stats().liveBytes(), footprint = m.offHeapFootprint();
                assertThrows(IndexOutOfBoundsException.class, () -> m.put(100L, FaultyCodec.OVERRUN));
                assertThrows(IndexOutOfBoundsException.class, () -> m.zc().putIfAbsent(101L, FaultyCodec.OVERRUN));
                assertThrows(IndexOutOfBoundsException.class, () -> m.computeIfAbsent(102L, k -> FaultyCodec.OVERRUN));
                IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> m.put(103L, FaultyCodec.NEGATIVE));
                assertTrue(negative.getMessage().contains("-1 bytes"), negative.getMessage());
                assertThrows(AssertionError.class, () -> m.put(104L, FaultyCodec.ERROR));
                assertThrows(AssertionError.class, () -> m.merge(105L, FaultyCodec.ERROR, Long::sum));
                nova.reclaimNow();
                assertEquals(live, a.stats().liveBytes(), "the failed inserts' slices were freed");
                assertEquals(footprint, m.offHeapFootprint());
                assertEquals(10, m.size());
                for (long k = 100; k <= 105; k++) assertFalse(m.containsKey(k));
                // a present value: the update fails, the key stays mapped and usable
                assertThrows(IndexOutOfBoundsException.class, () -> m.put(3L, FaultyCodec.OVERRUN));
                assertThrows(IllegalArgumentException.class, () -> m.replace(4L, FaultyCodec.NEGATIVE));
                assertEquals(4L, m.get(4L), "a negative size is refused before anything is written");
                assertEquals(3L, m.get(3L), "the failed put wrote the old value back");
                assertNotNull(m.put(3L, 33L));
                assertEquals(33L, m.get(3L));
                assertEquals(10, m.size());
            }
        }
    }

    /**
     * A map with its own allocator closed by another thread while a compute function holds a
     * view of the value (a race the map's close allows): the view keeps working on memory that
     * is still mapped (reading zeros once the close gave the pages back), and the compute then
     * fails with IllegalStateException. With a bare re-scoped view the write below reached the
     * unmapped region and the JVM died.
     */
    @Test
    void aWriteViewSurvivesTheMapClosingUnderIt() throws Exception {
        OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).budget(8 << 20).build();
        m.put(1L, new byte[64]);
        AtomicReference<Long> seen = new AtomicReference<>();
        assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(1L, w -> {
            MemorySegment v = w.segment();
            Thread closer = new Thread(m::close);
            closer.start();
            try {
                closer.join(10_000);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertTrue(m.isClosed(), "the close did not wait for the compute");
            v.set(ValueLayout.JAVA_LONG, 8, 7L);
            seen.set(v.get(ValueLayout.JAVA_LONG, 8));
        }));
        assertEquals(7L, seen.get(), "the view still worked after the close");
    }

    // ---- iterators -------------------------------------------------------------------------------

    /** Iterator details of the skip list: forEachRemaining then remove, next past the end, toArray of views. */
    @Test
    void iteratorAndToArrayDetailsLikeSkipList() {
        try (OakMap<Long, Long> m = newMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = oracle(m, 0, 30, 1);
            views().forEach((name, f) -> {
                same(name + ": forEachRemaining then remove", o, m, x -> {
                    Iterator<Map.Entry<Long, Long>> it = f.apply(x).entrySet().iterator();
                    it.next();
                    List<Object> rest = new ArrayList<>();
                    it.forEachRemaining(rest::add);
                    it.remove(); // removes the last element forEachRemaining returned
                    rest.add(outcome(it::remove)); // twice: IllegalStateException
                    rest.add(outcome(it::next));
                    rest.add(it.hasNext());
                    return rest;
                });
                same(name + ": keySet.toArray", o, m, x -> Arrays.asList(f.apply(x).keySet().toArray()));
                same(name + ": toArray(larger array)", o, m, x -> {
                    Long[] a = new Long[200];
                    Arrays.fill(a, -7L);
                    return Arrays.asList(f.apply(x).navigableKeySet().toArray(a));
                });
                same(name + ": descendingKeySet.toArray(generator)", o, m, x -> Arrays.asList(f.apply(x).descendingKeySet().toArray(Long[]::new)));
                same(name + ": values.toArray", o, m, x -> Arrays.asList(f.apply(x).values().toArray()));
                same(name + ": entrySet.toArray", o, m, x -> Arrays.asList(f.apply(x).entrySet().toArray()));
                same(name + ": keySet retainAll / removeAll", o, m, x -> f.apply(x).keySet().retainAll(Set.of(3L, 12L, 13L, 20L, 40L, 45L))
                        + " " + f.apply(x).keySet().removeAll(List.of(12L, 99L)));
            });
            assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
        }
    }

    private static Object outcome(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (RuntimeException e) {
            return e.getClass();
        }
    }

    /**
     * Weak consistency while the map changes under an iterator and tiny chunks split and merge
     * beneath it: in each direction, keys come sorted and at most once, every key present
     * throughout the scan is returned, no key absent throughout is.
     */
    @Test
    void iteratorsStayWeaklyConsistentWhileRebalancesRunUnderThem() {
        Random r = new Random(17);
        for (boolean descending : new boolean[] {false, true}) {
            try (OakMap<Long, Long> m = newMap(4)) {
                Set<Long> everPresent = new TreeSet<>(), alwaysPresent = new TreeSet<>();
                for (long k = 0; k < 400; k += 2) m.put(k, k);
                alwaysPresent.addAll(m.keySet());
                everPresent.addAll(m.keySet());
                ConcurrentNavigableMap<Long, Long> v = descending ? m.descendingMap() : m;
                Iterator<Map.Entry<Long, Long>> it = v.entrySet().iterator();
                List<Long> seen = new ArrayList<>();
                while (it.hasNext()) {
                    Map.Entry<Long, Long> e = it.next();
                    assertEquals(e.getKey(), e.getValue(), "a snapshot entry holds its key's value");
                    seen.add(e.getKey());
                    for (int i = 0; i < 6; i++) {
                        long k = r.nextInt(420);
                        if (r.nextBoolean()) {
                            m.put(k, k);
                            everPresent.add(k);
                        } else {
                            m.remove(k);
                            alwaysPresent.remove(k);
                        }
                    }
                }
                List<Long> sorted = new ArrayList<>(new TreeSet<>(seen));
                if (descending) sorted = sorted.reversed();
                assertEquals(sorted, seen, "sorted, no key twice");
                assertTrue(seen.containsAll(alwaysPresent), "every key present throughout is returned");
                assertTrue(everPresent.containsAll(seen), "no key absent throughout is returned");
                assertThrows(NoSuchElementException.class, it::next);
                assertTrue(OakMapContractTest.chunkCount(m) > 10, "rebalances ran");
            }
        }
    }
}
