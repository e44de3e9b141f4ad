package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;

class OakMapSmokeTest {
    static OakMap<Long, Long> newMap(int chunk) {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build();
    }

    @Test
    void randomOpsMatchSkipList() {
        try (OakMap<Long, Long> m = newMap(8)) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            Random r = new Random(1);
            for (int i = 0; i < 200_000; i++) {
                long k = r.nextInt(2000);
                switch (r.nextInt(6)) {
                    case 0 -> assertEquals(o.put(k, (long) i), m.put(k, (long) i));
                    case 1 -> assertEquals(o.remove(k), m.remove(k));
                    case 2 -> assertEquals(o.get(k), m.get(k));
                    case 3 -> assertEquals(o.putIfAbsent(k, (long) i), m.putIfAbsent(k, (long) i));
                    case 4 -> assertEquals(o.ceilingKey(k), m.ceilingKey(k), "ceiling " + k);
                    default -> assertEquals(o.lowerKey(k), m.lowerKey(k), "lower " + k);
                }
            }
            assertEquals(o.size(), m.size());
            assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
            List<Long> desc = new ArrayList<>(o.descendingKeySet());
            assertEquals(desc, new ArrayList<>(m.descendingKeySet()));
            assertEquals(o.subMap(100L, true, 900L, false), m.subMap(100L, true, 900L, false));
            assertEquals(new ArrayList<>(o.subMap(100L, 900L).descendingMap().keySet()),
                    new ArrayList<>(m.subMap(100L, 900L).descendingMap().keySet()));
        }
    }

    @Test
    void zeroCopyComputeGrows() {
        try (OakMap<Long, Long> m = newMap(16)) {
            m.put(1L, 5L);
            OakReadBuffer b = m.zc().get(1L);
            assertEquals(5L, b.getLong(0));
            assertTrue(m.zc().computeIfPresent(1L, w -> {
                w.resize(4000);
                w.putLong(3992, 77L);
                w.putLong(0, 6L);
            }));
            assertEquals(4000, b.size());
            assertEquals(6L, b.getLong(0));
            assertEquals(77L, b.getLong(3992));
            assertTrue(m.zc().remove(1L));
            assertThrows(RemovedValueException.class, () -> b.getLong(0));
        }
    }

    @Test
    void aWriteViewKeptPastTheComputeFunctionIsDead() {
        try (OakMap<Long, Long> m = newMap(16)) {
            m.put(1L, 5L);
            java.lang.foreign.MemorySegment[] kept = new java.lang.foreign.MemorySegment[1];
            m.zc().computeIfPresent(1L, w -> kept[0] = w.segment());
            assertThrows(IllegalStateException.class, () -> kept[0].set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, 9L));
            assertEquals(5L, m.get(1L));
        }
    }
}
