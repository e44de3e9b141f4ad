package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A poll takes effect at its confirmation and keeps the value locked for writing (L) until its
 * removal store, so "a reader of it waits for the lock (so sees it removed), as every update of
 * it does" (MapView.poll). The zero-copy putIfAbsent answers "present" from the lock word
 * without waiting for L until 2026-11-24 ({@code InternalOakMap.doPut}); now it waits, as
 * {@code containsKey} does.
 *
 * <p>History: P = subMap(0,100).pollFirstEntry() confirms 5 as the first key; B = put(3)
 * completes; C = zc().putIfAbsent(5) starts after B and returns false; P returns 5. P returned 5
 * although 3 &lt; 5 was present from B's end on, so P precedes B; C follows B, so C follows P and
 * must find 5 absent and insert it. Returning false (and leaving 5 absent) has no linearization.
 * The legacy putIfAbsent waits for the poll and inserts.
 */
class ZeroCopyPutIfAbsentDuringPollTest {
    @Test
    void zeroCopyPutIfAbsentWaitsForAPollThatTookEffect() throws Exception {
        StoppingComparator cmp = new StoppingComparator(false, false);
        try (OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            m.put(5L, 50L);
            ConcurrentNavigableMap<Long, Long> view = m.subMap(0L, true, 100L, false);
            AtomicReference<Map.Entry<Long, Long>> polled = new AtomicReference<>();
            AtomicInteger lockedStops = new AtomicInteger();
            AtomicReference<Boolean> zcInserted = new AtomicReference<>();
            AtomicReference<Thread> putter = new AtomicReference<>();
            Thread poller = new Thread(() -> polled.set(view.pollFirstEntry()));
            cmp.run(poller, (a, b) -> a == 100L && b == 5L, other -> {
                long p = m.core.lookup(5L);
                boolean locked = p != 0 && (m.core.values.lockWordAcquire(p) & ValueSlices.LOCKED) != 0;
                // the second stop under the poll's write lock: its confirmation's check scan, past 3's place
                if (locked && lockedStops.incrementAndGet() == 2) {
                    m.put(3L, 30L);                              // B, completes
                    putter.set(Thread.ofPlatform().start(() -> zcInserted.set(m.zc().putIfAbsent(5L, 51L)))); // C, after B
                    putter.get().join(300); // a correct C waits for the poll, which resumes after this
                }
            });
            putter.get().join(10_000);
            assertEquals(2, lockedStops.get(), "the scenario ran");
            assertEquals(5L, polled.get().getKey(), "the poll took 5 (confirmed before 3 came in)");
            assertTrue(zcInserted.get(), "zc().putIfAbsent(5) answered 'present' after the poll of 5 took effect; now 5 is absent: "
                    + "containsKey(5)=" + m.containsKey(5L));
        }
    }
}
