package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * The scan fast path ({@link Cursor#advance}): entries read ahead in groups, descending scans
 * that push the bypasses of several prefix entries at once, plain next-links inside the sorted
 * prefix. Chunks here are large enough (32 to 512 entries) that read-ahead windows and step-back
 * groups end inside a chunk, and keys are inserted in random order after a rebalance so that
 * chunks have sorted prefixes with bypasses of every length; a wrong window, group boundary or
 * skipped bypass shows up as a missing, repeated or misordered key, or a value of another key.
 */
class ScanFastPathTest {

    private static long valueOf(long key, long version) {
        return key << 20 | version;
    }

    /** The map (stream scans, both directions, from random bounds) holds exactly the oracle. */
    @Property(tries = 60)
    void streamScansEqualTheOracle(@ForAll @IntRange(min = 32, max = 512) int chunk,
                                   @ForAll @IntRange(min = 0, max = 3000) int keys,
                                   @ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build()) {
            TreeMap<Long, Long> o = new TreeMap<>();
            long range = 2L * keys + 1;
            for (int i = 0; i < keys; i++) {
                long k = r.nextLong(range);
                long v = valueOf(k, i & 0xFFFF);
                switch (r.nextInt(8)) {
                    case 0 -> {
                        m.zc().remove(k);
                        o.remove(k);
                    }
                    case 1 -> {
                        m.zc().computeIfPresent(k, w -> w.putLong(0, w.getLong(0) + 1));
                        o.computeIfPresent(k, (kk, old) -> old + 1);
                    }
                    default -> {
                        m.zc().put(k, v);
                        o.put(k, v);
                    }
                }
            }
            check(o, m.zc(), "whole map");
            check(o.descendingMap(), m.zc().descendingMap(), "whole map descending");
            for (int i = 0; i < 8; i++) {
                long from = r.nextLong(range + 2) - 1;
                boolean inclusive = r.nextBoolean();
                check(o.tailMap(from, inclusive), m.zc().tailMap(from, inclusive), "tail from " + from);
                check(o.headMap(from, inclusive).descendingMap(), m.zc().descendingMap().tailMap(from, inclusive),
                        "descending from " + from);
            }
            assertEquals(new ArrayList<>(o.keySet()), new ArrayList<>(m.keySet()));
            assertEquals(new ArrayList<>(o.descendingKeySet()), new ArrayList<>(m.descendingKeySet()));
        }
    }

    /**
     * {@code zc().get} and {@code zc().put} / {@code putIfAbsent} (which find an entry by order
     * prefixes, in the sorted prefix or along a bypass, and load its value before confirming its
     * key) find exactly what the oracle holds: keys whose order prefixes collide (String prefixes
     * are the first four characters), keys in bypasses, absent keys; and puts never link a key
     * twice.
     */
    @Property(tries = 60)
    void zeroCopyGetsFindExactlyTheOracle(@ForAll @IntRange(min = 4, max = 256) int chunk,
                                          @ForAll @IntRange(min = 0, max = 1500) int ops,
                                          @ForAll @LongRange(min = 0, max = 1L << 40) long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        String[] stems = {"", "a", "abc", "abcd", "abcde", "abcd\u0000"};
        List<String> universe = new ArrayList<>();
        for (String stem : stems) for (int i = 0; i < 60; i++) universe.add(stem + i);
        try (OakMap<String, Long> m = OakMap.builder(OakCodecs.STRING, OakCodecs.LONG, OakCodecs.STRING).maxChunkEntries(chunk).build()) {
            TreeMap<String, Long> o = new TreeMap<>();
            for (int i = 0; i < ops; i++) {
                String k = universe.get(r.nextInt(universe.size()));
                int dice = r.nextInt(8);
                if (dice < 2) {
                    m.zc().remove(k);
                    o.remove(k);
                } else if (dice == 2) {
                    assertEquals(!o.containsKey(k), m.zc().putIfAbsent(k, (long) i), "putIfAbsent " + k);
                    o.putIfAbsent(k, (long) i);
                } else {
                    m.zc().put(k, (long) i);
                    o.put(k, (long) i);
                }
            }
            for (String k : universe) {
                OakReadBuffer b = m.zc().get(k);
                Long want = o.get(k);
                if (want == null) assertEquals(null, b, "absent key " + k);
                else assertEquals(want, b == null ? null : b.getLong(0), "key " + k);
            }
            assertEquals(new ArrayList<>(o.keySet()), new ArrayList<>(m.keySet()));
            assertEquals(o.size(), m.size());
        }
    }

    private static void check(NavigableMap<Long, Long> want, ZeroCopyMap<Long, Long> view, String what) {
        List<Long> wantKeys = new ArrayList<>(want.keySet());
        List<Long> wantValues = new ArrayList<>(want.values());
        List<Long> gotKeys = new ArrayList<>(), gotValues = new ArrayList<>();
        for (Map.Entry<OakReadBuffer, OakReadBuffer> e : view.entryStreamSet()) {
            gotKeys.add(e.getKey().getLong(0));
            gotValues.add(e.getValue().getLong(0));
        }
        assertEquals(wantKeys, gotKeys, what + ": keys");
        assertEquals(wantValues, gotValues, what + ": values");
        List<Long> streamed = new ArrayList<>();
        for (OakReadBuffer v : view.valueStreamSet()) streamed.add(v.getLong(0));
        assertEquals(wantValues, streamed, what + ": value stream");
    }

    /**
     * Under churn (removes reclaimed with Nova batch 1, so slices are reused at once; puts; in-place
     * computes; computes that grow stable keys' values, which moves them to new slices and lets
     * the old ones be reused while a scan may have read them ahead; rebalances of 64-entry chunks),
     * stream scans in both directions from random bounds are strictly ordered, contain every
     * stable key (inserted before and never removed) in their range, contain no key that was never
     * inserted, and accept no value of another key.
     */
    @Test
    void streamScansStayConsistentUnderChurn() throws Exception {
        final long n = 4096; // even keys are stable, odd keys churn
        dev.floe.memory.FloeAllocator alloc = dev.floe.memory.FloeAllocator.builder().regionSize(1L << 30).jmx(false).build();
        dev.floe.reclaim.Nova nova = new dev.floe.reclaim.Nova(alloc, 1);
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                .nova(nova).maxChunkEntries(64).build()) {
            SplittableRandom fill = new SplittableRandom(11);
            for (long i = 0; i < n; i++) {
                long k = fill.nextLong(n);
                m.put(k, valueOf(k, 0));
            }
            for (long k = 0; k < n; k += 2) m.put(k, valueOf(k, 0)); // every stable key present
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    SplittableRandom r = new SplittableRandom(12);
                    long version = 1;
                    while (!stop.get()) {
                        long k = r.nextLong(n);
                        long v = valueOf(k, version++ & 0xFFFFF);
                        if ((k & 1) == 0) { // stable: grow by 8 bytes (a move now and then), or write in place
                            m.zc().computeIfPresent(k, w -> {
                                if (w.size() < 8000 && r.nextBoolean()) w.resize(w.size() + 8);
                                w.putLong(0, v);
                            });
                        } else if (r.nextInt(3) == 0) {
                            m.zc().remove(k);
                        } else {
                            m.zc().put(k, v);
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            writer.start();
            AtomicLong scanned = new AtomicLong();
            long end = System.nanoTime() + 1_500_000_000L;
            try {
                SplittableRandom r = new SplittableRandom(13);
                while (System.nanoTime() < end && failure.get() == null) {
                    long from = r.nextLong(n);
                    boolean descending = r.nextBoolean();
                    ZeroCopyMap<Long, Long> view = descending ? m.zc().descendingMap().tailMap(from, true) : m.zc().tailMap(from, true);
                    long expectStable = descending ? from & ~1L : (from + 1) & ~1L; // next stable key in scan order
                    long prev = descending ? Long.MAX_VALUE : Long.MIN_VALUE;
                    for (Map.Entry<OakReadBuffer, OakReadBuffer> e : view.entryStreamSet()) {
                        long k, v;
                        try {
                            k = e.getKey().getLong(0);
                        } catch (RemovedValueException gone) {
                            continue; // a churn key removed, dropped and its slice reclaimed since the cursor looked
                        }
                        try {
                            v = e.getValue().getLong(0);
                        } catch (RemovedValueException gone) {
                            v = valueOf(k, 0); // removed after the cursor looked: allowed
                        }
                        if (descending ? k >= prev : k <= prev) fail("not strictly ordered: " + prev + " then " + k);
                        if (k < 0 || k >= n) fail("key " + k + " was never inserted");
                        if (v >>> 20 != k) fail("value " + v + " of another key accepted for key " + k);
                        if ((k & 1) == 0) {
                            if (k != expectStable) fail("stable key " + expectStable + " missing (next was " + k + ")");
                            expectStable += descending ? -2 : 2;
                        }
                        prev = k;
                        scanned.incrementAndGet();
                    }
                    if (descending ? expectStable >= 0 : expectStable < n) fail("stable keys from " + expectStable + " missing at the end");
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            if (failure.get() != null) throw new AssertionError("writer failed", failure.get());
            assertTrue(scanned.get() > n, "scanned " + scanned.get() + " entries");
        } finally {
            alloc.close();
        }
    }
}
