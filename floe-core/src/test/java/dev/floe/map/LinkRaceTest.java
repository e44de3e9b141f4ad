package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An insert links its entry with a CAS that expects exactly the successor it compared its key
 * with ({@link Chunk#link}): an entry linked there meanwhile makes the CAS fail and the walk
 * resume, or one of the two inserts is lost. Racing inserts of neighbouring keys hit that window
 * only now and then in a stress run; here it is hit every time, without timing: the keys have
 * no prefixes (every comparison goes through the comparator), and the comparator stops the
 * inserting thread each time it compares its key with a larger stored key; while it is stopped,
 * the test inserts a key halfway between the two. The stopped insert must then look again,
 * every time, until no key fits between; at the end every key inserted must be there.
 */
class LinkRaceTest {

    @Test
    void anInsertLinkedBetweenTheWalkAndTheCasIsNeverOverwritten() throws Exception {
        ExecutorService helper = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "neighbour-inserter");
            t.setDaemon(true);
            return t;
        });
        for (int variant = 0; variant < 4; variant++) {
            StoppingComparator cmp = new StoppingComparator(false, false); // every comparison reaches it
            // a large first chunk: no rebalance (which would wait for the stopped insert) during a round
            try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp)
                    .maxChunkEntries(64).build()) {
                TreeSet<Long> model = new TreeSet<>();
                for (long k : new long[] {0, 1000}) {
                    map.put(k, k);
                    model.add(k);
                }
                long key = 500;
                boolean viaZc = (variant & 1) == 1, viaPut = (variant & 2) == 2;
                AtomicReference<Object> result = new AtomicReference<>();
                Thread inserter = Thread.ofPlatform().daemon().unstarted(() -> {
                    try {
                        result.set(viaPut ? (Object) map.put(key, key) : viaZc ? (Object) map.zc().putIfAbsent(key, key)
                                : (Object) map.putIfAbsent(key, key));
                    } catch (Throwable t) {
                        result.set(t);
                    }
                });
                int[] between = {0};
                // stop the insert whenever it compares its key with a larger stored key
                cmp.run(inserter, (a, b) -> a == key && b > a, stop -> {
                    long mid = (key + stop) >>> 1;
                    if (mid != key && !model.contains(mid)) {
                        Future<Long> f = helper.submit(() -> map.put(mid, mid));
                        assertNull(f.get(1, TimeUnit.MINUTES), "put(" + mid + ") of an absent key");
                        model.add(mid);
                        between[0]++;
                    }
                });
                Object r = result.get();
                if (r instanceof Throwable t) throw new AssertionError("insert of " + key + " failed", t);
                assertTrue(viaPut || !viaZc ? r == null : (Boolean) r, "insert of absent key " + key + " returned " + r);
                model.add(key);
                List<Long> want = new ArrayList<>(model);
                assertEquals(want, new ArrayList<>(map.keySet()), "keys after the race (variant " + variant + ")");
                for (long k : model) assertEquals(k, (long) map.get(k), "get(" + k + ")");
                assertEquals(model.size(), map.size());
                // the stopped insert looked again after every neighbour (750, 625, ... 501): the window was hit
                assertTrue(between[0] >= 5, "keys inserted between the stopped insert's key and its successor: " + between[0]);
            }
        }
        helper.shutdownNow();
    }
}
