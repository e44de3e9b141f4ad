package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
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

        @Override
        public int compareKeys(Long a, Long b) {
            return OakCodecs.LONG.compareKeys(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }

        @Override
        public int compareKeyAndSerializedKey(Long key, MemorySegment serializedKey) {
            if (failing) throw new IllegalStateException("comparator failed");
            return OakCodecs.LONG.compareKeyAndSerializedKey(key, serializedKey);
        }

        @Override
        public long prefixOf(Long key) {
            return OakCodecs.LONG.prefixOf(key);
        }

        @Override
        public long prefixOfSerialized(MemorySegment serializedKey) {
            if (failing) throw new IllegalStateException("comparator failed");
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
     * A compute whose result outgrows the value's slice (8 bytes to 200) moves the value; the
     * comparator starts failing inside the function, so the move's lookup of the entry throws.
     * The mapping stays as it was and unlocked, and the new slice is freed: the footprint and the
     * allocator's live bytes are back where they were. The same through a zero-copy writer's resize.
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
