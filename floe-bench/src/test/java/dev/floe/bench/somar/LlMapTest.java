package dev.floe.bench.somar;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.SizeClasses;
import dev.floe.reclaim.Nova;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The LL-map against a {@link TreeMap} (sequential contract) and under concurrent puts and
 * deletes (sorted, no duplicates, no lost keys, no leaked slices), for Nova with primitive and
 * object pointers, the other SOMAR implementations, the on-heap variant and one arena per object.
 */
class LlMapTest {

    private static final int KEY = Sizing.LL_KEY_BYTES;
    private static final int VALUE = Sizing.LL_VALUE_BYTES;

    private static LlMap open(String impl) {
        return (LlMap) SomarImpl.byLabel(impl).open(Structure.LL, Sizing.of(dev.floe.bench.harness.Mode.QUICK));
    }

    @ParameterizedTest
    @ValueSource(strings = {"floe-nova", "floe-nova-magic", "floe-nova-object", "floe-ebr", "floe-he", "grow-only", "gc-g1",
            "segment-per-object"})
    void sequentialOperationsMatchATreeMap(String impl) {
        try (LlMap list = open(impl)) {
            TreeMap<Long, Long> model = new TreeMap<>();
            Probe p = list.newProbe();
            Random r = new Random(7);
            for (int i = 0; i < 20_000; i++) {
                long id = r.nextInt(300);
                p.key(id);
                switch (r.nextInt(3)) {
                    case 0 -> {
                        boolean inserted = list.put(p);
                        assertEquals(!model.containsKey(id), inserted, "put " + id);
                        model.put(id, p.seq());
                    }
                    case 1 -> assertEquals(model.remove(id) != null, list.delete(p), "delete " + id);
                    default -> {
                        boolean found = list.get(p);
                        assertEquals(model.containsKey(id), found, "get " + id);
                        if (found) {
                            assertEquals(model.get(id), (long) Keys.BE_LONG.get(p.out, 0), "value of " + id);
                        }
                    }
                }
            }
            assertEquals(new ArrayList<>(model.keySet()), list.keyIds());
            assertEquals(model.size(), list.size());
        }
    }

    @Test
    void keysCompareAsUnsignedByteStrings() {
        Probe p = new Probe(KEY, VALUE);
        byte[] a = Keys.key(5, KEY);
        assertEquals(0, Keys.compare(a, p.key(5)));
        assertTrue(Keys.compare(a, p.key(6)) < 0);
        assertTrue(Keys.compare(a, p.key(4)) > 0);
        assertTrue(Keys.compare(Keys.key(-1L, KEY), p.key(1)) > 0, "unsigned");
        a[KEY - 1]++;
        assertTrue(Keys.compare(a, p.key(5)) > 0, "a difference in the last byte counts");
        assertTrue(Keys.compare(java.lang.foreign.MemorySegment.ofArray(a), p.key(5)) > 0);
        assertEquals(0, Keys.compare(java.lang.foreign.MemorySegment.ofArray(Keys.key(9, KEY)), p.key(9)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"floe-nova", "floe-nova-magic", "floe-nova-object", "floe-ebr", "floe-he", "gc-g1", "segment-per-object"})
    void concurrentPutsAndDeletesKeepTheListSortedWithoutDuplicatesOrLostKeys(String impl) throws Exception {
        try (LlMap list = open(impl)) {
            // Closing an arena is a handshake with every thread: fewer operations for FFM.
            concurrentRun(list, impl.equals("segment-per-object") ? 8_000 : 30_000);
        }
    }

    /** Nova: after the concurrent run and a reclamation pass, exactly the listed entries' blocks are live. */
    @Test
    void novaLeaksNoSlicesUnderRaces() throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().name("ll-test").build()) {
            Nova nova = new Nova(alloc, 64);
            LlMap list = new SomarLongList(new SomarStore(nova, alloc), KEY, VALUE);
            concurrentRun(list, 30_000);
            nova.reclaimNow();
            alloc.trim();
            long perEntry = SizeClasses.blockSize(SizeClasses.classOf(KEY + 8))
                    + SizeClasses.blockSize(SizeClasses.classOf(VALUE + 8));
            assertEquals(list.size() * perEntry, alloc.stats().liveBytes(), "live blocks = entries' key and value");
        }
    }

    /**
     * Four threads: thread t only inserts its own keys (id % 8 == t), and every thread puts,
     * deletes and gets the shared keys (id % 8 >= 4) at random, on a list that starts with the
     * shared keys in. Then: the list is strictly ascending, holds every own key, and every listed
     * key and value is readable; deleting the shared keys leaves exactly the own keys.
     */
    private static void concurrentRun(LlMap list, int opsPerThread) throws Exception {
        int threads = 4;
        int range = 512;
        Probe init = list.newProbe();
        for (int id = range - 1; id >= 0; id--) {
            if (id % 8 >= 4) list.put(init.key(id));
        }
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                fs.add(pool.submit(() -> {
                    Probe p = list.newProbe();
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    start.await();
                    int own = me;
                    for (int i = 0; i < opsPerThread; i++) {
                        if (i % 16 == 0 && own < range) {
                            assertTrue(list.put(p.key(own)), "own key " + own + " inserted once");
                            own += 8;
                            continue;
                        }
                        long id = r.nextInt(range / 8) * 8L + 4 + r.nextInt(4);
                        switch (r.nextInt(3)) {
                            case 0 -> list.put(p.key(id));
                            case 1 -> list.delete(p.key(id));
                            default -> list.get(p.key(id));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
        List<Long> ids = list.keyIds();
        for (int i = 1; i < ids.size(); i++) {
            assertTrue(ids.get(i - 1) < ids.get(i), "sorted without duplicates at " + i + ": " + ids);
        }
        Set<Long> present = new HashSet<>(ids);
        assertFalse(present.contains(-1L), "every listed key is readable");
        for (long id = 0; id < range; id++) {
            if (id % 8 < 4) assertTrue(present.contains(id), "own key " + id + " lost");
        }
        Probe p = list.newProbe();
        for (long id : ids) assertTrue(list.get(p.key(id)), "value of " + id + " readable");
        assertEquals(ids.size(), list.size());
        for (long id = 0; id < range; id++) {
            if (id % 8 >= 4) list.delete(p.key(id));
        }
        List<Long> own = new ArrayList<>();
        for (long id = 0; id < range; id++) if (id % 8 < 4) own.add(id);
        assertEquals(own, list.keyIds());
    }

    @Test
    void fillPutsDistinctKeysFromTheRange() {
        try (LlMap list = open("gc-g1")) {
            SomarSuite.fill(list, 100, 200, 1);
            List<Long> ids = list.keyIds();
            assertEquals(100, ids.size());
            assertEquals(100, new HashSet<>(ids).size());
            assertTrue(ids.stream().allMatch(id -> id >= 0 && id < 200));
        }
    }
}
