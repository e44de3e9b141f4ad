package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A user's comparator that throws inside the map's structural steps, after the operation has
 * changed something it must either finish or undo:
 * <ul>
 *   <li>a rebalance copies the first key of each new chunk on-heap ({@link KeyCopy}, which asks
 *       the comparator for its order prefix) after it froze the old chunk and before it publishes
 *       the new ones. A failure there must leave the old chunk current and usable; it stayed
 *       frozen without a replacement, so every later update of its keys waited for a rebalance
 *       that never came (the next put spun forever);</li>
 *   <li>a value that outgrows its slice moves: the update allocates and fills the new slice, then
 *       finds the entry again to install it. A comparison that fails there must free the new
 *       slice; it leaked (the footprint estimate and the allocator kept it).</li>
 * </ul>
 */
class ComparatorFailureTest {

    /**
     * {@link OakCodecs#LONG}'s order whose {@code prefixOfSerialized} and
     * {@code compareKeyAndSerializedKey} throw while {@link #failing}.
     */
    private static final class FailingComparator implements OakComparator<Long> {
        volatile boolean failing;
        /** While set, {@code prefixOfSerialized} alone throws, on one call in this many. */
        volatile int failingOneIn;
        /** If not negative: the number of calls, of any method, that succeed before one throws (once). */
        final AtomicInteger callsBeforeFailure = new AtomicInteger(-1);

        private void countCall() {
            if (callsBeforeFailure.get() >= 0 && callsBeforeFailure.getAndDecrement() == 0) {
                throw new IllegalStateException("comparator failed at a counted call");
            }
        }

        @Override
        public int compareKeys(Long a, Long b) {
            countCall();
            return OakCodecs.LONG.compareKeys(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            countCall();
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }

        @Override
        public int compareKeyAndSerializedKey(Long key, MemorySegment serializedKey) {
            countCall();
            if (failing) throw new IllegalStateException("comparator failed");
            return OakCodecs.LONG.compareKeyAndSerializedKey(key, serializedKey);
        }

        @Override
        public long prefixOf(Long key) {
            countCall();
            return OakCodecs.LONG.prefixOf(key);
        }

        @Override
        public long prefixOfSerialized(MemorySegment serializedKey) {
            countCall();
            int oneIn = failingOneIn;
            if (failing || (oneIn > 0 && ThreadLocalRandom.current().nextInt(oneIn) == 0)) {
                throw new IllegalStateException("comparator failed");
            }
            return OakCodecs.LONG.prefixOfSerialized(serializedKey);
        }
    }

    /**
     * The fourth put fills a 4-entry chunk and splits it; the split's copy of the second half's
     * first key throws. The put has inserted (its link came first) and reports the comparator's
     * exception; afterwards puts, removes, computes and scans of the chunk's keys work, and the
     * next rebalance splits it.
     */
    @Test
    void aComparatorThatThrowsInARebalanceLeavesTheChunkUsable() {
        FailingComparator cmp = new FailingComparator();
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).maxChunkEntries(4).build()) {
            for (long k = 1; k <= 3; k++) m.put(k, k);
            cmp.failing = true;
            assertThrows(IllegalStateException.class, () -> m.put(4L, 4L));
            cmp.failing = false;
            assertEquals(4L, m.get(4L), "the put linked its entry before the rebalance failed");
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                assertEquals(1L, m.put(1L, 10L));
                assertEquals(2L, m.remove(2L));
                assertEquals(13L, m.compute(3L, (k, v) -> v + 10));
                for (long k = 5; k <= 20; k++) m.put(k, k);
            }, "updates of the chunk's keys after its rebalance failed");
            assertEquals(10L, m.get(1L));
            assertEquals(List.of(1L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L),
                    List.copyOf(m.keySet()));
            assertEquals(19, m.size());
        }
    }

    /**
     * A remove whose comparator throws after the removal took effect, while the remove looks its
     * entry up again to count the removal in the entry's chunk: the entry must still be dropped by
     * the chunk's next rebalance. Without a count, the rebalance copied the chunk without checking
     * values, and the entry kept its key slice for good. Every call of the remove's comparator is
     * made to fail in turn; the calls after its removal store are the case.
     */
    @Test
    void aRemoveWhoseComparatorThrowsAfterTheRemovalStillHasItsEntryDropped() {
        int cases = 0;
        for (int failAt = 0; failAt < 64; failAt++) {
            FailingComparator cmp = new FailingComparator();
            try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).maxChunkEntries(8).build()) {
                for (long k = 1; k <= 20; k++) m.put(k, k);
                cmp.callsBeforeFailure.set(failAt);
                try {
                    m.remove(7L);
                    cmp.callsBeforeFailure.set(-1);
                    continue; // no call failed: past the remove's last call
                } catch (IllegalStateException expected) {
                    cmp.callsBeforeFailure.set(-1);
                }
                if (m.containsKey(7L)) continue; // failed before the removal: nothing to count
                cases++;
                InternalOakMap<Long, Long> core = m.core;
                List<Chunk> chunks = new ArrayList<>();
                for (Chunk c = core.firstChunk(); c != null; c = c.next) chunks.add(c);
                for (Chunk c : chunks) core.rebalance(c);
                int entries = 0;
                for (Chunk c = core.firstChunk(); c != null; c = c.next) {
                    for (int e = c.next(0); e != 0; e = c.next(e)) entries++;
                }
                assertEquals(19, entries, "failing call " + failAt + ": the removed entry outlived a rebalance");
                assertEquals(19, m.size());
            }
        }
        assertTrue(cases > 0, "no call after the removal failed: the test no longer reaches its case");
    }

    /**
     * Rebalances failing at random (one copy of a new chunk's first key in three) while two
     * threads put, remove and compute their own keys on 4-entry chunks: no thread hangs, an
     * operation that reports the failure left its key with the old mapping or the new one (a put
     * that filled its chunk rebalances before or after it inserts), every other key is as its
     * owner left it, and once the comparator works again the map rebalances and keeps working.
     */
    @Test
    void rebalancesFailingAtRandomLoseNoEntryAndBlockNoUpdate() throws Exception {
        FailingComparator cmp = new FailingComparator();
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).maxChunkEntries(4).build()) {
            List<TreeMap<Long, Long>> models = List.of(new TreeMap<>(), new TreeMap<>());
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            AtomicLong failures = new AtomicLong();
            cmp.failingOneIn = 3;
            long end = System.nanoTime() + 1_500_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int parity = t;
                TreeMap<Long, Long> model = models.get(t);
                threads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    SplittableRandom r = new SplittableRandom(parity);
                    try {
                        for (long i = 0; System.nanoTime() < end; i++) {
                            long k = 2L * r.nextInt(200) + parity;
                            int op = r.nextInt(3);
                            Long old = model.get(k);
                            Long next = op == 0 ? null : op == 1 ? Long.valueOf(i) : Long.valueOf(old == null ? i : old + 1);
                            try {
                                Long got = switch (op) {
                                    case 0 -> m.remove(k);
                                    case 1 -> m.put(k, next);
                                    default -> m.compute(k, (kk, v) -> v == null ? next : v + 1);
                                };
                                assertEquals(op == 2 ? next : old, got, "operation " + op + " on key " + k);
                                if (next == null) model.remove(k);
                                else model.put(k, next);
                            } catch (IllegalStateException failed) {
                                if (!"comparator failed".equals(failed.getMessage())) throw failed;
                                failures.incrementAndGet();
                                Long now = m.get(k);
                                if (!Objects.equals(now, old) && !Objects.equals(now, next)) {
                                    throw new AssertionError("key " + k + " holds " + now + " after a failed update from "
                                            + old + " to " + next);
                                }
                                if (now == null) model.remove(k);
                                else model.put(k, now);
                            }
                        }
                    } catch (Throwable e) {
                        wrong.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(20_000);
                if (t.isAlive()) {
                    StringBuilder where = new StringBuilder("a thread hangs, at");
                    for (StackTraceElement e : t.getStackTrace()) where.append("\n  ").append(e);
                    fail(where.toString());
                }
            }
            if (wrong.get() != null) throw new AssertionError(wrong.get());
            assertTrue(failures.get() > 0, "no rebalance failed");
            cmp.failingOneIn = 0;
            TreeMap<Long, Long> all = new TreeMap<>(models.get(0));
            all.putAll(models.get(1));
            assertEquals(all, new TreeMap<>(m));
            assertEquals(all.size(), m.size());
            for (long k = 1000; k < 1100; k++) m.put(k, k);
            for (long k = 0; k < 400; k++) m.remove(k);
            assertEquals(100, m.size());
            assertEquals(1000L, m.firstKey());
        }
    }

    /**
     * A compute whose result outgrows the value's slice (8 bytes to 200) moves the value; the
     * comparator starts failing inside the function, so the move's lookup of the entry throws.
     * The mapping stays as it was and unlocked, and the new slice is freed: the footprint and the
     * allocator's live bytes are back where they were. The same through a zero-copy writer's resize,
     * whose write in place before the resize is undone.
     */
    @Test
    void aComparatorThatThrowsWhileAValueMovesFreesTheNewSlice() {
        FailingComparator cmp = new FailingComparator();
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, cmp).budget(8 << 20).build()) {
            for (long k = 1; k <= 10; k++) m.put(k, new byte[] {(byte) k});
            long footprint = m.offHeapFootprint();
            long live = liveBytesAfterReclaim(m);
            assertThrows(IllegalStateException.class, () -> m.compute(5L, (k, v) -> {
                cmp.failing = true;
                return new byte[200];
            }));
            cmp.failing = false;
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(6L, w -> {
                w.putByte(0, (byte) 66); // in place, before the resize: undone when the move fails
                w.resize(200);
                cmp.failing = true;
            }));
            cmp.failing = false;
            assertArrayEquals(new byte[] {5}, m.get(5L));
            assertArrayEquals(new byte[] {6}, m.get(6L));
            assertEquals(footprint, m.offHeapFootprint(), "footprint estimate after the failed moves");
            assertEquals(live, liveBytesAfterReclaim(m), "allocator's live bytes after the failed moves");
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                assertArrayEquals(new byte[] {5}, m.put(5L, new byte[300]));
                assertArrayEquals(new byte[] {6}, m.remove(6L));
            }, "the values are unlocked");
        }
    }

    /** The live bytes of the map's own allocator once every retired slice was freed. */
    private static long liveBytesAfterReclaim(OakMap<?, ?> m) {
        m.core.nova.reclaimNow();
        return m.core.nova.allocator().stats().liveBytes();
    }
}
