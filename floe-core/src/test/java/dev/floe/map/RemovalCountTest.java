package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A rebalance checks the values of a chunk's entries only when the chunk counted a removal
 * ({@link Rebalancer}, "Which entries are checked"). These tests pin down the promise that makes
 * this safe: once removes have finished, every chunk that holds an entry with a removed value has
 * a non-zero removal count, so its next rebalance drops the entry and retires its key; and a
 * chunk copied without checks keeps every live entry.
 */
class RemovalCountTest {

    /** Entries of a chunk whose value is removed (or absent), read on a quiescent map. */
    private static int removedEntries(InternalOakMap<?, ?> core, Chunk c) {
        int n = 0;
        for (int e = c.next(0); e != 0; e = c.next(e)) {
            long v = c.value(e);
            if (!Chunk.holdsValue(v) || !core.values.isLive(v)) n++;
        }
        return n;
    }

    private static int entries(Chunk c) {
        int n = 0;
        for (int e = c.next(0); e != 0; e = c.next(e)) n++;
        return n;
    }

    /** Rebalances every chunk of the quiescent map once (test-only: a compaction of everything). */
    private static void rebalanceAll(InternalOakMap<?, ?> core) {
        List<Chunk> chunks = new ArrayList<>();
        for (Chunk c = core.firstChunk(); c != null; c = c.next) chunks.add(c);
        for (Chunk c : chunks) core.rebalance(c); // a chunk merged away meanwhile is skipped
    }

    /**
     * Two threads put and remove overlapping keys of tiny chunks (rebalances all the time, removes
     * racing them); afterwards every chunk holding a removed entry has counted a removal, and one
     * rebalance of every chunk leaves exactly the live keys.
     */
    @Test
    void everyRemovedEntryIsCountedInTheChunkThatHoldsIt() throws Exception {
        for (int chunk : new int[] {4, 8, 32}) {
            try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                    .maxChunkEntries(chunk).build()) {
                int range = 512;
                CyclicBarrier start = new CyclicBarrier(2);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int id = t;
                    threads.add(Thread.ofPlatform().name("churn-" + t).start(() -> {
                        try {
                            SplittableRandom r = new SplittableRandom(17 + id);
                            start.await();
                            while (System.nanoTime() < deadline) {
                                for (int i = 0; i < 256; i++) {
                                    long k = r.nextInt(range);
                                    if (r.nextInt(3) == 0) map.remove(k);
                                    else map.put(k, k);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
                for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(60));
                if (failure.get() != null) throw new AssertionError(failure.get());
                InternalOakMap<Long, Long> core = map.core;
                int removedInAll = 0;
                for (Chunk c = core.firstChunk(); c != null; c = c.next) {
                    int removed = removedEntries(core, c);
                    assertTrue(removed == 0 || c.removals > 0,
                            "chunk " + chunk + ": " + removed + " removed entries but no counted removal");
                    removedInAll += removed;
                }
                assertTrue(removedInAll > 0, "chunk " + chunk + ": no removed entry left to check");
                rebalanceAll(core);
                int live = 0;
                for (Chunk c = core.firstChunk(); c != null; c = c.next) {
                    assertEquals(0, removedEntries(core, c), "a rebalance dropped every removed entry");
                    live += entries(c);
                }
                assertEquals(map.size(), live, "entries left are the live keys");
            }
        }
    }

    /**
     * LONG keys whose key-to-serialized comparisons can stop the calling thread at the n-th one
     * (a hook into a search), and that counts them.
     */
    private static final class PausingKeys implements OakSerializer<Long>, OakComparator<Long> {
        final AtomicInteger calls = new AtomicInteger();
        volatile int pauseAt = -1;
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);

        @Override public void serialize(Long k, MemorySegment t) { OakCodecs.LONG.serialize(k, t); }
        @Override public Long deserialize(MemorySegment s) { return OakCodecs.LONG.deserialize(s); }
        @Override public int sizeOf(Long k) { return OakCodecs.LONG.sizeOf(k); }
        @Override public int compareKeys(Long a, Long b) { return OakCodecs.LONG.compareKeys(a, b); }
        @Override public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }
        @Override public long prefixOf(Long k) { return OakCodecs.LONG.prefixOf(k); }
        @Override public long prefixOfSerialized(MemorySegment s) { return OakCodecs.LONG.prefixOfSerialized(s); }

        @Override
        public int compareKeyAndSerializedKey(Long key, MemorySegment serialized) {
            if (calls.incrementAndGet() == pauseAt) {
                paused.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return OakCodecs.LONG.compareKeyAndSerializedKey(key, serialized);
        }
    }

    private static OakMap<Long, Long> filled(PausingKeys keys) {
        OakMap<Long, Long> map = OakMap.builder(keys, OakCodecs.LONG, keys).maxChunkEntries(64).build();
        for (long k = 0; k < 10; k++) map.put(k, k);
        return map;
    }

    /**
     * The race the removal count must survive, forced: a remove has stored R and located its
     * entry's chunk to count itself there, when a rebalance freezes that chunk, reads its count
     * (still 0), copies the entry unchecked and publishes the new chunk; only then does the remove
     * count. Its last key comparison is in that counting search, so the test stops it there (the
     * n-th comparison, n counted on an identical map), rebalances, and lets it go. The entry's
     * new chunk must have counted the removal, so that its next rebalance drops the entry.
     */
    @Test
    void aRemoveCountedOnAChunkFrozenMeanwhileCountsAgainInItsReplacement() throws Exception {
        PausingKeys dry = new PausingKeys();
        int n;
        try (OakMap<Long, Long> map = filled(dry)) {
            int before = dry.calls.get();
            assertTrue(map.zc().remove(5L));
            n = dry.calls.get() - before; // the remove's comparisons; the last one is in its count
        }
        PausingKeys keys = new PausingKeys();
        try (OakMap<Long, Long> map = filled(keys)) {
            InternalOakMap<Long, Long> core = map.core;
            Chunk old = core.locate(5L);
            keys.pauseAt = keys.calls.get() + n;
            Thread remover = Thread.ofPlatform().name("remover").start(() -> map.zc().remove(5L));
            assertTrue(keys.paused.await(30, TimeUnit.SECONDS), "the remover reached its counting search");
            core.rebalance(old);
            assertTrue(old.replacement != null, "the chunk was replaced");
            keys.resume.countDown();
            remover.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(remover.isAlive(), "the remove finished");
            Chunk now = core.locate(5L);
            int removed = removedEntries(core, now);
            assertEquals(1, removed, "the removed entry was copied unchecked");
            assertTrue(now.removals > 0, "the new chunk counted the removal");
            core.rebalance(now);
            assertEquals(0, removedEntries(core, core.locate(5L)), "its next rebalance dropped the entry");
            assertEquals(9, map.size());
        }
    }

    /**
     * Inserts only (no chunk ever counts a removal, so every copy is unchecked): splits and
     * compactions keep every key with its value, in order.
     */
    @Test
    void uncheckedCopiesKeepEveryEntry() {
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG)
                .maxChunkEntries(64).build()) {
            ConcurrentSkipListMap<Long, Long> oracle = new ConcurrentSkipListMap<>();
            SplittableRandom r = new SplittableRandom(5);
            for (int i = 0; i < 20_000; i++) {
                long k = r.nextLong(1_000_000);
                map.put(k, ~k);
                oracle.put(k, ~k);
            }
            int chunks = 0;
            for (Chunk c = map.core.firstChunk(); c != null; c = c.next) {
                assertEquals(0, c.removals);
                chunks++;
            }
            assertTrue(chunks > 100, "splits happened: " + chunks + " chunks");
            assertEquals(oracle, map);
            assertEquals(oracle.size(), map.size());
        }
    }
}
