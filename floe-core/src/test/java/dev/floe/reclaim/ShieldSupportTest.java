package dev.floe.reclaim;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The additions the Snowflake shields use: re-pointing a held slot, and a CAS advance of the clock. */
class ShieldSupportTest {

    @Test
    void publishRepointsAHeldSlot() {
        HazardSlots slots = new HazardSlots(4);
        int s = slots.protect(16);
        slots.publish(s, 24);
        assertArrayEquals(new long[] {24}, slots.snapshot());
        assertThrows(IllegalArgumentException.class, () -> slots.publish(s, 0));
        slots.clear(s);
        assertEquals(0, slots.snapshot().length);
    }

    @Test
    void advanceFromMovesTheClockOnceFromAValue() throws Exception {
        EraClock clock = new EraClock();
        long from = clock.current();
        assertTrue(clock.advanceFrom(from));
        assertFalse(clock.advanceFrom(from));
        assertEquals(from + 1, clock.current());
        AtomicInteger wins = new AtomicInteger();
        long now = clock.current();
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) ts[i] = Thread.ofPlatform().start(() -> {
            if (clock.advanceFrom(now)) wins.incrementAndGet();
        });
        for (Thread t : ts) t.join();
        assertEquals(1, wins.get());
        assertEquals(now + 1, clock.current());
    }
}
