package dev.floe.map;

import static dev.floe.map.OakMapContractTest.same;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of {@link OakMap} against {@link ConcurrentSkipListMap}: after any list of updates
 * (legacy and zero-copy) on arbitrary keys, the map holds what the oracle holds, in the same order
 * both ways; every sub-view with arbitrary bounds holds what the oracle's does and navigates the
 * same. Long keys include the extremes; String keys include the empty string and characters whose
 * UTF-16 order differs from their code point order.
 */
class OakMapPropertyTest {
    enum Kind { PUT, PUT_IF_ABSENT, REMOVE, REMOVE_VALUE, REPLACE, REPLACE_VALUE, COMPUTE, MERGE, POLL_FIRST, POLL_LAST,
        CLEAR_RANGE, ITERATOR_REMOVE, ZC_PUT, ZC_REMOVE, ZC_INCREMENT, ZC_UPSERT }

    /** One operation: {@code key2} bounds range operations, {@code value} is the value (or a stride). */
    record Op<K>(Kind kind, K key, K key2, long value) {}

    @Provide
    Arbitrary<List<Op<Long>>> longOps() {
        Arbitrary<Long> keys = Arbitraries.oneOf(Arbitraries.longs().between(-40, 40),
                Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, 0L, -1L));
        return ops(keys);
    }

    @Provide
    Arbitrary<List<Op<String>>> stringOps() {
        Arbitrary<String> keys = Arbitraries.oneOf(
                Arbitraries.strings().withChars('a', 'b', 'z', '\u0000', '\u00e9', '\ud83d', '\uffff').ofMinLength(0).ofMaxLength(4),
                Arbitraries.just(""));
        return ops(keys);
    }

    private static <K> Arbitrary<List<Op<K>>> ops(Arbitrary<K> keys) {
        Arbitrary<Kind> kinds = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, Arbitraries.just(Kind.PUT)),
                net.jqwik.api.Tuple.of(4, Arbitraries.just(Kind.REMOVE)),
                net.jqwik.api.Tuple.of(12, Arbitraries.of(Kind.class)));
        Arbitrary<Long> values = Arbitraries.longs().between(-5, 1000);
        return Combinators.combine(kinds, keys, keys, values).as(Op::new).list().ofMaxSize(300);
    }

    @Provide
    Arbitrary<Long> longKeys() {
        return Arbitraries.oneOf(Arbitraries.longs().between(-45, 45), Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE));
    }

    @Property(tries = 150)
    void longMapEqualsOracleAfterArbitraryOperations(@ForAll("longOps") List<Op<Long>> ops,
                                                     @ForAll @IntRange(min = 4, max = 16) int chunk) {
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build()) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            applyAll(ops, o, m);
            assertSameInBothOrders(o, m);
        }
    }

    @Property(tries = 150)
    void stringMapEqualsOracleAfterArbitraryOperations(@ForAll("stringOps") List<Op<String>> ops,
                                                       @ForAll @IntRange(min = 4, max = 16) int chunk) {
        try (OakMap<String, Long> m = OakMap.builder(OakCodecs.STRING, OakCodecs.LONG, OakCodecs.STRING).maxChunkEntries(chunk).build()) {
            ConcurrentSkipListMap<String, Long> o = new ConcurrentSkipListMap<>();
            applyAll(ops, o, m);
            assertSameInBothOrders(o, m);
            same("get(\"\")", o, m, x -> x.get(""));
            same("ceilingKey(\"\")", o, m, x -> x.ceilingKey(""));
            same("lowerKey(\"\")", o, m, x -> x.lowerKey(""));
        }
    }

    @Property(tries = 150)
    void longSubViewsEqualOracleSubViews(@ForAll("longOps") List<Op<Long>> ops, @ForAll("longKeys") long lo,
                                         @ForAll boolean loInclusive, @ForAll("longKeys") long hi,
                                         @ForAll boolean hiInclusive, @ForAll @IntRange(min = 4, max = 16) int chunk) {
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build()) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            applyAll(ops, o, m);
            List<Long> probes = probes(ops, lo, hi);
            same("subMap creation", o, m, x -> x.subMap(lo, loInclusive, hi, hiInclusive));
            if (lo <= hi) {
                assertSameView(o.subMap(lo, loInclusive, hi, hiInclusive), m.subMap(lo, loInclusive, hi, hiInclusive), probes);
                assertSameView(o.descendingMap().subMap(hi, hiInclusive, lo, loInclusive),
                        m.descendingMap().subMap(hi, hiInclusive, lo, loInclusive), probes);
            }
            assertSameView(o.headMap(hi, hiInclusive), m.headMap(hi, hiInclusive), probes);
            assertSameView(o.tailMap(lo, loInclusive), m.tailMap(lo, loInclusive), probes);
            assertSameView(o.descendingMap().headMap(hi, hiInclusive), m.descendingMap().headMap(hi, hiInclusive), probes);
            assertSameView(o.tailMap(lo, loInclusive).descendingMap(), m.tailMap(lo, loInclusive).descendingMap(), probes);
        }
    }

    @Property(tries = 100)
    void stringSubViewsEqualOracleSubViews(@ForAll("stringOps") List<Op<String>> ops, @ForAll("stringKeys") String a,
                                           @ForAll("stringKeys") String b, @ForAll boolean loInclusive, @ForAll boolean hiInclusive) {
        String lo = a.compareTo(b) <= 0 ? a : b, hi = a.compareTo(b) <= 0 ? b : a;
        try (OakMap<String, Long> m = OakMap.builder(OakCodecs.STRING, OakCodecs.LONG, OakCodecs.STRING).maxChunkEntries(4).build()) {
            ConcurrentSkipListMap<String, Long> o = new ConcurrentSkipListMap<>();
            applyAll(ops, o, m);
            List<String> probes = probes(ops, lo, hi);
            assertSameView(o.subMap(lo, loInclusive, hi, hiInclusive), m.subMap(lo, loInclusive, hi, hiInclusive), probes);
            assertSameView(o.descendingMap().subMap(hi, hiInclusive, lo, loInclusive),
                    m.descendingMap().subMap(hi, hiInclusive, lo, loInclusive), probes);
            assertSameView(o.headMap(lo, loInclusive), m.headMap(lo, loInclusive), probes);
            assertSameView(o.tailMap(hi, hiInclusive).descendingMap(), m.tailMap(hi, hiInclusive).descendingMap(), probes);
        }
    }

    @Provide
    Arbitrary<String> stringKeys() {
        return Arbitraries.strings().withChars('a', 'b', '\u00e9', '\uffff').ofMinLength(0).ofMaxLength(3);
    }

    /** Every key of the operations and the bounds, and neighbours of the Long ones. */
    @SuppressWarnings("unchecked")
    private static <K> List<K> probes(List<Op<K>> ops, K lo, K hi) {
        Set<K> s = new LinkedHashSet<>();
        s.add(lo);
        s.add(hi);
        for (Op<K> op : ops) {
            s.add(op.key);
            s.add(op.key2);
        }
        if (lo instanceof Long) {
            for (Object k : List.copyOf(s)) {
                long l = (Long) k;
                if (l != Long.MAX_VALUE) s.add((K) (Long) (l + 1));
                if (l != Long.MIN_VALUE) s.add((K) (Long) (l - 1));
            }
        }
        return new ArrayList<>(s);
    }

    // ---- applying operations -------------------------------------------------------------------

    static <K extends Comparable<K>> void applyAll(List<Op<K>> ops, ConcurrentSkipListMap<K, Long> o, OakMap<K, Long> m) {
        int step = 0;
        for (Op<K> op : ops) apply(op, o, m, "step " + step++ + " " + op);
    }

    static <K extends Comparable<K>> void apply(Op<K> op, ConcurrentSkipListMap<K, Long> o, OakMap<K, Long> m, String w) {
        K k = op.key;
        long v = op.value;
        K lo = k.compareTo(op.key2) <= 0 ? k : op.key2, hi = k.compareTo(op.key2) <= 0 ? op.key2 : k;
        switch (op.kind) {
            case PUT -> same(w, o, m, x -> x.put(k, v));
            case PUT_IF_ABSENT -> same(w, o, m, x -> x.putIfAbsent(k, v));
            case REMOVE -> same(w, o, m, x -> x.remove(k));
            case REMOVE_VALUE -> {
                long current = o.getOrDefault(k, v);
                same(w, o, m, x -> x.remove(k, v % 2 == 0 ? current : v));
            }
            case REPLACE -> same(w, o, m, x -> x.replace(k, v));
            case REPLACE_VALUE -> {
                long current = o.getOrDefault(k, v);
                same(w, o, m, x -> x.replace(k, v % 2 == 0 ? current : v + 1, v));
            }
            case COMPUTE -> same(w, o, m, x -> x.compute(k, (key, old) -> old == null ? (v % 3 == 0 ? null : v) : (old % 4 == 0 ? null : old + v)));
            case MERGE -> same(w, o, m, x -> x.merge(k, v, (a, b) -> a + b == 0 ? null : a + b));
            case POLL_FIRST -> same(w, o, m, ConcurrentNavigableMap::pollFirstEntry);
            case POLL_LAST -> same(w, o, m, ConcurrentNavigableMap::pollLastEntry);
            case CLEAR_RANGE -> same(w, o, m, x -> {
                ConcurrentNavigableMap<K, Long> sub = v % 2 == 0 ? x.subMap(lo, true, hi, v % 4 == 0) : x.descendingMap().subMap(hi, lo);
                sub.clear();
                return sub.isEmpty();
            });
            case ITERATOR_REMOVE -> same(w, o, m, x -> {
                int stride = 1 + (int) Math.floorMod(v, 5L);
                Iterator<Map.Entry<K, Long>> it = (v % 2 == 0 ? x.tailMap(lo) : x.descendingMap()).entrySet().iterator();
                List<Object> seen = new ArrayList<>();
                for (int i = 0; it.hasNext(); i++) {
                    seen.add(it.next());
                    if (i % stride == 0) it.remove();
                }
                return seen;
            });
            case ZC_PUT -> {
                o.put(k, v);
                m.zc().put(k, v);
            }
            case ZC_REMOVE -> assertEquals(o.remove(k) != null, m.zc().remove(k), w);
            case ZC_INCREMENT -> {
                boolean present = o.computeIfPresent(k, (key, old) -> old + 1) != null;
                assertEquals(present, m.zc().computeIfPresent(k, b -> b.putLong(0, b.getLong(0) + 1)), w);
            }
            case ZC_UPSERT -> {
                boolean absent = o.putIfAbsent(k, v) == null;
                if (!absent) o.computeIfPresent(k, (key, old) -> old * 2);
                assertEquals(absent, m.zc().putIfAbsentComputeIfPresent(k, v, b -> b.putLong(0, b.getLong(0) * 2)), w);
            }
        }
    }

    // ---- comparing -----------------------------------------------------------------------------

    static <K> void assertSameInBothOrders(ConcurrentSkipListMap<K, Long> o, OakMap<K, Long> m) {
        List<Map.Entry<K, Long>> ascending = new ArrayList<>(m.entrySet());
        assertEquals(new ArrayList<>(o.entrySet()), ascending);
        List<Map.Entry<K, Long>> reversed = new ArrayList<>(ascending);
        Collections.reverse(reversed);
        assertEquals(reversed, new ArrayList<>(m.descendingMap().entrySet()), "descending = reversed ascending");
        List<K> keys = new ArrayList<>(m.keySet());
        Collections.reverse(keys);
        assertEquals(keys, new ArrayList<>(m.descendingKeySet()), "descending keys = reversed ascending keys");
        List<K> it = new ArrayList<>();
        m.navigableKeySet().descendingIterator().forEachRemaining(it::add);
        assertEquals(keys, it, "descendingIterator = reversed ascending keys");
        assertEquals(o.size(), m.size());
        assertEquals(o, m);
        assertEquals(o.hashCode(), m.hashCode());
        List<Long> values = new ArrayList<>();
        for (OakReadBuffer b : m.zc().values()) values.add(b.getLong(0));
        assertEquals(new ArrayList<>(o.values()), values, "zero-copy values");
        assertEquals(o.size(), m.zc().size());
    }

    /** Same contents in order, and same navigation from every probe. */
    static <K> void assertSameView(ConcurrentNavigableMap<K, Long> o, ConcurrentNavigableMap<K, Long> m, List<K> probes) {
        assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()), "entries");
        assertEquals(new ArrayList<>(o.descendingMap().entrySet()), new ArrayList<>(m.descendingMap().entrySet()), "descending entries");
        List<Map.Entry<K, Long>> reversed = new ArrayList<>(m.entrySet());
        Collections.reverse(reversed);
        assertEquals(reversed, new ArrayList<>(m.descendingMap().entrySet()), "descending = reversed ascending");
        assertEquals(o.size(), m.size(), "size");
        assertEquals(o.isEmpty(), m.isEmpty(), "isEmpty");
        same("firstKey", o, m, ConcurrentNavigableMap::firstKey);
        same("lastEntry", o, m, ConcurrentNavigableMap::lastEntry);
        for (K p : probes) {
            same("floor " + p, o, m, x -> x.floorEntry(p));
            same("ceiling " + p, o, m, x -> x.ceilingKey(p));
            same("higher " + p, o, m, x -> x.higherEntry(p));
            same("lower " + p, o, m, x -> x.lowerKey(p));
            same("get " + p, o, m, x -> x.get(p));
            same("containsKey " + p, o, m, x -> x.containsKey(p));
        }
        Comparator<? super K> c = m.comparator();
        List<K> keys = new ArrayList<>(m.keySet());
        List<K> sorted = new ArrayList<>(keys);
        sorted.sort(c);
        assertEquals(keys, sorted, "iteration follows comparator()");
    }
}
