package dev.floe.bench.manual;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmark's cache: hits, misses, sliding expiration, eviction exactly once, no payload mix-ups. */
class SlidingCacheTest {

    @Test
    void hitsMissesAndSlidingExpirationForBothImplementations() throws Exception {
        for (boolean manual : new boolean[] {true, false}) {
            try (SlidingCache<?> c = manual ? new ManualPayloadCache(2048, 50, 64L << 20) : new HeapPayloadCache(2048, 50)) {
                try (SlidingCache<?>.Worker w = c.worker()) {
                    long t = 0; // the driver's virtual clock starts at 0
                    w.request(1, t);
                    w.request(1, t + 10_000_000L);          // 10 ms later: hit, refreshes the entry
                    w.request(1, t + 55_000_000L);          // 45 ms after the refresh: still a hit (sliding)
                    w.request(1, t + 200_000_000L);         // 145 ms idle: expired, replaced
                    assertEquals(2, c.hits.sum());
                    assertEquals(2, c.misses.sum());
                    assertEquals(1, c.evictions.sum());
                    assertEquals(1, c.size());
                }
                assertEquals(0, c.mismatches.sum());
            }
        }
    }

    @Test
    void concurrentRequestsNeverReadAnotherPayloadAndManualFreesEveryPayload() throws Exception {
        ManualPayloadCache c = new ManualPayloadCache(256, 5, 64L << 20);
        try {
            CacheDriver.run(c, 2, 200_000, 2_000, 1);
            assertEquals(0, c.mismatches.sum());
            assertTrue(c.evictions.sum() > 0, "entries expired during the run");
            assertEquals(c.misses.sum(), c.evictions.sum() + c.size(), "each inserted entry is in the cache or was evicted once");
            c.clear();
            assertEquals(0, c.heap().reclaim());
            assertEquals(c.misses.sum(), c.heap().freedCount(), "every payload freed exactly once");
        } finally {
            c.close();
        }
    }
}
