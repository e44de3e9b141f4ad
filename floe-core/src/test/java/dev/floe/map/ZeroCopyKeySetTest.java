package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Membership in the zero-copy key sets is by key, as in a map's key set: {@code contains},
 * {@code remove}, {@code removeAll} and {@code retainAll} take the key a buffer holds. With the
 * buffers' identity alone, {@code keySet().retainAll(otherKeySetOfTheSameMap)} removed every key
 * and {@code remove(buffer)} removed none.
 */
class ZeroCopyKeySetTest {
    private static OakMap<Long, Long> filled(int n) {
        OakMap<Long, Long> m = ZeroCopyMapTest.longMap(8);
        for (long k = 0; k < n; k++) m.put(k, k * 10);
        return m;
    }

    private static List<OakReadBuffer> keyBuffers(ZeroCopyMap<Long, Long> zc) {
        return new ArrayList<>(zc.keySet());
    }

    private static Set<Long> keys(OakMap<Long, Long> m) {
        return new TreeSet<>(m.keySet());
    }

    @Test
    void containsAndRemoveTakeTheKeyABufferHolds() {
        try (OakMap<Long, Long> m = filled(20)) {
            List<OakReadBuffer> other = keyBuffers(m.zc()); // buffers of another iteration
            Set<OakReadBuffer> ks = m.zc().keySet();
            for (OakReadBuffer b : other) assertTrue(ks.contains(b), "key " + b.getLong(0));
            assertTrue(ks.remove(other.get(3)));
            assertFalse(m.containsKey(3L));
            assertFalse(ks.contains(other.get(3)), "a removed key");
            assertFalse(ks.remove(other.get(3)), "a second remove of the same key");
            assertEquals(19, m.size());
        }
    }

    @Test
    void retainAllAndRemoveAllWithAnotherKeySetOfTheMapWorkAsOnKeys() {
        try (OakMap<Long, Long> m = filled(30)) {
            assertFalse(m.zc().keySet().retainAll(m.zc().keySet()), "retaining the map's own keys changes nothing");
            assertEquals(30, m.size());
            assertTrue(m.zc().keySet().retainAll(m.zc().subMap(5L, true, 15L, false).keySet()));
            assertEquals(new TreeSet<>(List.of(5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L)), keys(m));
            assertTrue(m.zc().keySet().removeAll(m.zc().headMap(8L, true).keyStreamSet()));
            assertEquals(new TreeSet<>(List.of(9L, 10L, 11L, 12L, 13L, 14L)), keys(m));
        }
    }

    @Test
    void aSubViewsKeySetHoldsOnlyTheKeysInItsRange() {
        try (OakMap<Long, Long> m = filled(20)) {
            Set<OakReadBuffer> sub = m.zc().subMap(5L, true, 10L, false).keySet();
            List<OakReadBuffer> all = keyBuffers(m.zc());
            for (OakReadBuffer b : all) {
                long k = b.getLong(0);
                assertEquals(k >= 5 && k < 10, sub.contains(b), "key " + k);
            }
            assertFalse(sub.remove(all.get(12)), "a key outside the range");
            assertTrue(m.containsKey(12L));
            assertTrue(sub.remove(all.get(7)));
            assertFalse(m.containsKey(7L));
        }
    }

    @Test
    void aStreamSetsReusedBufferIsLookedUpByTheKeyItHoldsNow() {
        try (OakMap<Long, Long> m = filled(10)) {
            Set<OakReadBuffer> ks = m.zc().keySet();
            Iterator<OakReadBuffer> it = m.zc().keyStreamSet().iterator();
            it.next();
            OakReadBuffer b = it.next(); // key 1
            assertTrue(ks.remove(b));
            assertEquals(9, m.size());
            assertFalse(m.containsKey(1L));
        }
    }

    @Test
    void valueBuffersAndOtherObjectsAreInNoKeySet() {
        try (OakMap<Long, Long> m = filled(10)) {
            Set<OakReadBuffer> ks = m.zc().keySet();
            OakReadBuffer value = m.zc().get(2L); // holds 20, not a key even though 2 and 20 are both longs
            assertFalse(ks.contains(value));
            assertFalse(ks.remove(value));
            assertFalse(ks.contains(2L), "a key object is not a buffer");
            assertFalse(ks.contains(null));
            assertEquals(10, m.size());
        }
    }

    @Test
    void aKeyBufferOfAnotherMapWithTheSameKeyFormatNamesTheSameKey() {
        try (OakMap<Long, Long> a = filled(10); OakMap<Long, Long> b = filled(5)) {
            assertTrue(a.zc().keySet().retainAll(b.zc().keySet()));
            assertEquals(keys(b), keys(a));
        }
    }

    @Test
    void valuesAndEntriesKeepIdentityMembership() {
        try (OakMap<Long, Long> m = filled(5)) {
            OakReadBuffer v = m.zc().get(1L);
            assertFalse(m.zc().values().contains(v), "values are not unique: no lookup by bytes");
            assertFalse(m.zc().values().remove(v));
            assertEquals(5, m.size());
        }
    }

    @Test
    void aClosedMapsKeySetRefusesLookups() {
        OakMap<Long, Long> m = filled(5);
        Set<OakReadBuffer> ks = m.zc().keySet();
        OakReadBuffer b = keyBuffers(m.zc()).get(0);
        m.close();
        assertThrows(IllegalStateException.class, () -> ks.contains(b));
        assertThrows(IllegalStateException.class, () -> ks.remove(b));
    }
}
