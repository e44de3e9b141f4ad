package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Edge cases of the public API of {@code dev.floe.lockfree} that {@link LockFreeLongMapTest} does
 * not cover: the memory a closed structure gives back (allocator live bytes), what still answers
 * after close, limbo capacities too large to allocate, keys next to the ends of the range, and an
 * insert that runs out of budget.
 */
class LockFreeApiEdgeCaseTest {

    /**
     * Every node goes back: the live ones with {@code close}, the removed ones (in limbo lists)
     * with {@code reclaimIdle}, the head words with {@code close}. NR keeps exactly the nodes it
     * reports as retired, its documented leak.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.floe.lockfree.LockFreeLongMapTest#cases")
    void closeAndReclaimIdleGiveEveryByteBack(String kind, String scheme) {
        try (FloeAllocator alloc = Schemes.allocator()) {
            long baseline = alloc.stats().liveBytes();
            Reclamation rec = Schemes.of(scheme, alloc, 16);
            int keys = kind.equals("list") ? 400 : 4000;
            LockFreeLongMap m = Schemes.structure(kind, rec, keys);
            for (long k = 0; k < keys; k++) assertTrue(m.insert(k * 7919, k));
            for (long k = 0; k < keys; k += 2) assertTrue(m.remove(k * 7919));
            assertEquals(keys / 2, m.size());
            m.close();
            rec.reclaimIdle();
            Reclamation.Stats st = rec.stats();
            assertEquals(keys / 2, st.retired());
            long leaked = alloc.stats().liveBytes() - baseline;
            if (scheme.equals("nr")) {
                assertEquals(st.retired() * HarrisMichaelCore.NODE_BYTES, leaked, "nr keeps what it retired, no more");
            } else {
                assertEquals(0, st.inLimbo());
                assertEquals(st.retired(), st.freed());
                assertEquals(0, leaked, "nodes, limbo lists and heads all went back");
            }
        }
    }

    @Test
    void afterCloseTheOperationsThrowButTheAccessorsStillAnswer() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc);
            MichaelHashTable t = new MichaelHashTable(rec, 100);
            t.insert(1, 1);
            t.close();
            assertThrows(IllegalStateException.class, () -> t.insert(2, 2));
            assertThrows(IllegalStateException.class, t::size);
            assertThrows(IllegalStateException.class, t::close);
            assertSame(rec, t.reclamation());
            assertEquals(0, t.incarnationMismatches());
            assertEquals(134, t.bucketCount());
            try (HarrisMichaelList again = new HarrisMichaelList(rec)) { // the scheme stays usable
                assertTrue(again.insert(1, 1));
            }
        }
    }

    /** A structure cannot be made on a closed allocator: the allocator's exception, nothing allocated. */
    @Test
    void aStructureOnAClosedAllocatorIsRefused() {
        FloeAllocator alloc = Schemes.allocator();
        Reclamation rec = Reclamation.oaVer(alloc);
        alloc.close();
        assertThrows(IllegalStateException.class, () -> new HarrisMichaelList(rec));
        assertThrows(IllegalStateException.class, () -> new MichaelHashTable(rec, 100));
    }

    /**
     * A limbo capacity is allocated up front, twice per participant; {@code Integer.MAX_VALUE}
     * was an {@link OutOfMemoryError} ("Requested array size exceeds VM limit") instead of the
     * {@link IllegalArgumentException} a bad capacity gets.
     */
    @Test
    void aLimboCapacityTooLargeToAllocateIsRefused() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            assertThrows(IllegalArgumentException.class, () -> Reclamation.oaBit(alloc, Integer.MAX_VALUE));
            assertThrows(IllegalArgumentException.class, () -> Reclamation.oaVer(alloc, Reclamation.MAX_LIMBO_CAPACITY + 1));
            assertThrows(IllegalArgumentException.class, () -> Reclamation.epochs(alloc, Reclamation.MAX_LIMBO_CAPACITY + 1));
            assertDoesNotThrow(() -> Reclamation.epochs(alloc, Reclamation.MAX_LIMBO_CAPACITY));
            assertThrows(IllegalArgumentException.class, () -> Reclamation.epochs(alloc, 0));
            assertThrows(NullPointerException.class, () -> Reclamation.epochs(null));
            assertThrows(NullPointerException.class, () -> new MichaelHashTable(null, 10));
        }
    }

    /**
     * OA-VER reclaims a list between half and full capacity when another warning already covers
     * it; with a capacity of 1 "half" rounded to 0, so once the clock had moved past the last
     * retire (and from the start: the clock begins above the initial retire time) every update
     * ran a pass over an empty list (a fence, a hazard scan, a batch free of nothing): 12 passes
     * here instead of 1.
     */
    @Test
    void oaVerWithALimboCapacityOfOneRunsNoPassOverAnEmptyList() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 1);
            try (HarrisMichaelList list = new HarrisMichaelList(rec)) {
                assertTrue(list.insert(0, 0));
                assertTrue(list.remove(0)); // fills the list of one: a pass, which warns
                for (long k = 1; k <= 10; k++) assertTrue(list.insert(k, k)); // nothing retired
                assertEquals(1, rec.stats().reclaims(), "passes over an empty limbo list: " + rec.stats());
            }
        }
    }

    /** No key is a sentinel: the ends of the range and their neighbours are ordinary keys. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.floe.lockfree.LockFreeLongMapTest#cases")
    void keysAtAndNextToTheEndsOfTheRangeAreOrdinary(String kind, String scheme) {
        List<Long> keys = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L,
                Long.MAX_VALUE - 1, Long.MAX_VALUE));
        Collections.shuffle(keys, new Random(11));
        try (FloeAllocator alloc = Schemes.allocator();
             LockFreeLongMap m = Schemes.structure(kind, Schemes.of(scheme, alloc, 2), 4)) {
            for (long k : keys) assertTrue(m.insert(k, ~k));
            for (long k : keys) {
                assertFalse(m.insert(k, 5), "key " + k);
                assertEquals(~k, m.get(k, k), "key " + k); // absent == k: a wrong answer cannot hide
            }
            assertEquals(7, m.size());
            assertTrue(m.remove(Long.MIN_VALUE));
            assertTrue(m.remove(Long.MAX_VALUE));
            assertFalse(m.contains(Long.MIN_VALUE));
            assertFalse(m.contains(Long.MAX_VALUE));
            assertTrue(m.contains(Long.MIN_VALUE + 1));
            assertTrue(m.contains(Long.MAX_VALUE - 1));
            assertEquals(Long.MIN_VALUE, m.get(Long.MAX_VALUE, Long.MIN_VALUE));
            assertEquals(5, m.size());
            assertTrue(m.insert(Long.MAX_VALUE, Long.MAX_VALUE));
            assertEquals(Long.MAX_VALUE, m.get(Long.MAX_VALUE, 0));
            assertEquals(0, m.incarnationMismatches());
        }
    }

    /** Running out of budget mid-insert is the allocator's exception; the map is unchanged and usable. */
    @Test
    void anInsertThatRunsOutOfBudgetLeavesTheMapUnchanged() {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).budget(1L << 20).jmx(false).build()) {
            Reclamation rec = Reclamation.oaVer(alloc, 1);
            try (MichaelHashTable t = new MichaelHashTable(rec, 1000)) {
                long n = 0;
                try {
                    while (true) {
                        assertTrue(t.insert(n, n));
                        n++;
                    }
                } catch (FloeOutOfMemoryException expected) {
                    // the budget is spent
                }
                assertTrue(n > 1000, "inserted " + n);
                assertEquals(n, t.size());
                assertFalse(t.contains(n));
                assertThrows(FloeOutOfMemoryException.class, () -> t.insert(-1, -1));
                assertFalse(t.contains(-1));
                for (long k = 0; k < n; k += 97) assertEquals(k, t.get(k, -1));
                assertTrue(t.remove(0));
                rec.reclaimIdle();
                assertTrue(t.insert(-1, -1), "the freed node's room is usable again");
                assertEquals(n, t.size());
            }
            assertThrows(FloeOutOfMemoryException.class, () -> new MichaelHashTable(rec, 1 << 20),
                    "a bucket array beyond the budget");
        }
    }
}
