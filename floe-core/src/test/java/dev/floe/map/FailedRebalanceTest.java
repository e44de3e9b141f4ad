package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * User code that throws inside a rebalance: the rebalance copies the first key of each new chunk
 * on-heap ({@link KeyCopy}, which asks the comparator for its order prefix) after it froze the
 * old chunk and before it publishes the new ones. A failure there must leave the old chunk
 * current and usable; it stayed frozen without a replacement, so every later update of its keys
 * waited for a rebalance that never came (the next put spun forever).
 */
class FailedRebalanceTest {

    /** {@link OakCodecs#LONG}'s order whose {@code prefixOfSerialized} throws while {@link #failing}. */
    private static final class FailingPrefixComparator implements OakComparator<Long> {
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
        FailingPrefixComparator cmp = new FailingPrefixComparator();
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
}
