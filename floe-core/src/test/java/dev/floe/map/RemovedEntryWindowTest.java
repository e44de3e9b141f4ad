package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A removed key is absent from the moment of its remove's linearization point (the R store in
 * the value's lock word), not only once the entry is marked removed: between the two (while
 * {@code finalizeRemove} looks the entry up again to mark it) every read and every scan must
 * already skip it, because the value's lock word says removed. That window is a few hundred
 * nanoseconds, and stress tests hardly ever look inside it; here the remover is stopped in it,
 * deterministically: the map's comparator parks the removing thread whenever it compares the
 * removed key with its stored copy. At every such stop the test thread asks {@code get}; when
 * it answers absent (the stop is after the R store) every other way of looking must agree:
 * {@code zc().get}, {@code containsKey}, {@code ceilingKey}/{@code floorKey}, bounded scans
 * (the general cursor path) and whole-map scans in both directions, legacy and zero-copy (the
 * read-ahead fast paths). No timing is involved: the remover waits on a hand-off queue.
 */
class RemovedEntryWindowTest {

    @ParameterizedTest(name = "reclaim={0}")
    @ValueSource(booleans = {true, false})
    void aRemovedKeyIsAbsentEverywhereBeforeItsEntryIsMarked(boolean reclaim) throws Exception {
        StoppingComparator cmp = new StoppingComparator(true, true);
        final int n = 96;
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp)
                .maxChunkEntries(8).reclaim(reclaim).build()) {
            TreeSet<Long> model = new TreeSet<>();
            for (long k = 0; k < n; k += 2) { // evens first (rebalanced into sorted prefixes) ...
                map.put(k, k * 10);
                model.add(k);
            }
            for (long k = 1; k < n; k += 2) { // ... then odds, linked between them (bypass entries)
                map.put(k, k * 10);
                model.add(k);
            }
            int stopsAfter = 0;
            java.util.concurrent.ExecutorService checker = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "checker");
                t.setDaemon(true);
                return t;
            });
            for (long k = 3; k < n; k += 7) { // first, middle and last entries of chunks, both kinds
                long key = k;
                boolean viaZc = (k & 1) == 0;
                AtomicReference<Object> result = new AtomicReference<>();
                Thread remover = Thread.ofPlatform().daemon().unstarted(() -> {
                    try {
                        result.set(viaZc ? map.zc().remove(key) : map.remove(key));
                    } catch (Throwable t) {
                        result.set(t);
                    }
                });
                model.remove(key);
                int[] stopsAfterThisRemove = {0};
                // stop the remover whenever it compares the key with itself (the stored copy)
                cmp.run(remover, (a, b) -> a == key && b == key, stop -> {
                    boolean after = checked(checker, () -> {
                        if (map.get(key) != null) return false;
                        checkAbsent(map, key, model); // after the R store: the key is absent for good
                        return true;
                    }, cmp, key);
                    if (after) stopsAfterThisRemove[0]++;
                });
                Object r = result.get();
                if (r instanceof Throwable t) throw new AssertionError("remove(" + key + ") failed", t);
                assertTrue(viaZc ? (Boolean) r : Long.valueOf(key * 10).equals(r), "remove(" + key + ") returned " + r);
                assertTrue(stopsAfterThisRemove[0] > 0, "remove(" + key + ") compared its key with the stored one only"
                        + " before its linearization point: this test no longer looks inside the window it is about");
                stopsAfter += stopsAfterThisRemove[0];
                checkAbsent(map, key, model); // and once marked
            }
            assertTrue(stopsAfter > 0);
        }
    }

    /**
     * Runs the checks on the checker thread. A read that loops over the removed entry (accepting
     * it, then finding its value gone) never returns while the remover is stopped: after a
     * generous minute that is a failure too; the comparator is disarmed and the remover resumed,
     * so that everything ends.
     */
    private static boolean checked(java.util.concurrent.ExecutorService checker, java.util.concurrent.Callable<Boolean> checks,
                                   StoppingComparator cmp, long key) throws Exception {
        java.util.concurrent.Future<Boolean> f = checker.submit(checks);
        try {
            return f.get(1, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            cmp.disarm();
            if (e.getCause() instanceof AssertionError a) throw a;
            throw new AssertionError(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            cmp.disarm();
            throw new AssertionError("a read or scan did not return while remove(" + key + ") was stopped after its"
                    + " linearization point, before marking its entry (it loops over the removed entry?)");
        }
    }

    private static void checkAbsent(OakMap<Long, Long> map, long k, TreeSet<Long> model) {
        String when = " after remove(" + k + ") took effect, before its entry was marked";
        assertNull(map.get(k), "get" + when);
        assertNull(map.zc().get(k), "zc().get" + when);
        assertFalse(map.containsKey(k), "containsKey" + when);
        assertEquals(List.of(), new ArrayList<>(map.subMap(k, true, k, true).keySet()), "subMap [k, k] ascending" + when);
        assertEquals(List.of(), new ArrayList<>(map.subMap(k, true, k, true).descendingKeySet()), "subMap [k, k] descending" + when);
        assertEquals(new ArrayList<>(model.tailSet(k, false)), new ArrayList<>(map.tailMap(k, true).keySet()),
                "tailMap from k" + when);
        List<Long> all = new ArrayList<>(model);
        assertEquals(all, new ArrayList<>(map.keySet()), "keySet" + when);
        List<Long> desc = new ArrayList<>(map.descendingKeySet());
        Collections.reverse(desc);
        assertEquals(all, desc, "descendingKeySet" + when);
        List<Long> zc = new ArrayList<>();
        for (OakReadBuffer b : map.zc().keySet()) zc.add(b.getLong(0));
        assertEquals(all, zc, "zc().keySet()" + when);
        List<Long> zcDesc = new ArrayList<>();
        for (OakReadBuffer b : map.zc().descendingMap().keySet()) zcDesc.add(b.getLong(0));
        Collections.reverse(zcDesc);
        assertEquals(all, zcDesc, "zc().descendingMap().keySet()" + when);
        List<Long> stream = new ArrayList<>();
        for (OakReadBuffer b : map.zc().keyStreamSet()) stream.add(b.getLong(0));
        assertEquals(all, stream, "zc().keyStreamSet()" + when);
        // last: a navigation that finds the removed entry, then its value gone, looks again (and
        // would, as long as the remover stays stopped; see checked)
        assertNotEquals(Long.valueOf(k), map.ceilingKey(k), "ceilingKey" + when);
        assertNotEquals(Long.valueOf(k), map.floorKey(k), "floorKey" + when);
    }
}
