package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link HazardSlots} (its class comment): protect publishes a reference that every later
 * snapshot contains until it is cleared; a slot has one holder at a time; the table grows when
 * more protections are in flight than it has slots, and a growth never loses a protection.
 */
class HazardSlotsTest {

    @Test
    void protectClearSnapshotContains() {
        HazardSlots h = new HazardSlots(4);
        assertEquals(0, h.snapshot().length);
        assertFalse(HazardSlots.contains(h.snapshot(), 42));
        int a = h.protect(42);
        int b = h.protect(7);
        int c = h.protect(1L << 40);
        assertNotEquals(a, b);
        assertNotEquals(b, c);
        long[] snap = h.snapshot();
        assertArrayEquals(new long[] {7, 42, 1L << 40}, snap, "sorted references in flight");
        assertTrue(HazardSlots.contains(snap, 42));
        assertFalse(HazardSlots.contains(snap, 43));
        h.clear(a);
        assertFalse(HazardSlots.contains(h.snapshot(), 42), "cleared");
        assertTrue(HazardSlots.contains(h.snapshot(), 7));
        h.clear(b);
        h.clear(c);
        assertEquals(0, h.snapshot().length);
        // a cleared slot is free again
        int d = h.protect(99);
        assertTrue(d >= 0 && d < h.capacity());
        h.clear(d);
    }

    @Test
    void aReusedSnapshotAnswersForItsLatestScanOnly() {
        HazardSlots h = new HazardSlots(2);
        HazardSnapshot s = new HazardSnapshot();
        assertEquals(Long.MAX_VALUE, s.take(h).smallest());
        int a = h.protect(30);
        int b = h.protect(10);
        int c = h.protect(20); // grows the table past the first segment
        s.take(h);
        assertEquals(3, s.size());
        assertEquals(10, s.smallest());
        assertTrue(s.contains(20) && !s.contains(15));
        assertTrue(s.anyWithin(11, 20) && s.anyWithin(25, 40) && !s.anyWithin(11, 19) && !s.anyWithin(31, 99));
        assertArrayEquals(new long[] {10, 20, 30}, s.toArray());
        h.clear(b);
        h.clear(c);
        s.take(h);
        assertArrayEquals(new long[] {30}, s.toArray());
        assertFalse(s.contains(10));
        h.clear(a);
    }

    @Test
    void theSameReferenceMayBeProtectedTwice() {
        HazardSlots h = new HazardSlots(2);
        int a = h.protect(5);
        int b = h.protect(5);
        assertNotEquals(a, b);
        assertArrayEquals(new long[] {5, 5}, h.snapshot());
        h.clear(a);
        assertTrue(HazardSlots.contains(h.snapshot(), 5), "still held by the second protection");
        h.clear(b);
        assertFalse(HazardSlots.contains(h.snapshot(), 5));
    }

    @Test
    void argumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new HazardSlots(0));
        assertThrows(IllegalArgumentException.class, () -> new HazardSlots(-1));
        HazardSlots h = new HazardSlots();
        assertTrue(h.capacity() >= 16, "at least 16 slots by default");
        assertThrows(IllegalArgumentException.class, () -> h.protect(0));
        assertEquals(0, h.snapshot().length, "a refused protect holds nothing");
    }

    @Test
    void growsSingleThreadedWhenEverySlotIsHeld() {
        HazardSlots h = new HazardSlots(2);
        List<Integer> slots = new ArrayList<>();
        for (long r = 1; r <= 37; r++) slots.add(h.protect(r));
        assertTrue(h.capacity() >= 37, "capacity " + h.capacity());
        assertEquals(37, new HashSet<>(slots).size(), "distinct slots");
        assertEquals(37, h.snapshot().length);
        for (int s : slots) h.clear(s);
        assertEquals(0, h.snapshot().length);
        int capacity = h.capacity();
        for (long r = 1; r <= 37; r++) h.clear(h.protect(r));
        assertEquals(capacity, h.capacity(), "no growth when the slots are free");
    }

    /**
     * 64 virtual threads each hold one slot at once (more than the 4 initial slots): the table
     * grows, every holder gets its own slot, and a snapshot taken while they hold sees all 64.
     */
    @Test
    void manyConcurrentHoldersGrowTheTableAndEachGetsItsOwnSlot() throws Exception {
        HazardSlots h = new HazardSlots(4);
        int holders = 64;
        CountDownLatch holding = new CountDownLatch(holders);
        CountDownLatch release = new CountDownLatch(1);
        AtomicIntegerArray slotOf = new AtomicIntegerArray(holders);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < holders; t++) {
            int me = t;
            ts.add(Thread.ofVirtual().start(() -> {
                try {
                    int s = h.protect(1000 + me);
                    slotOf.set(me, s);
                    holding.countDown();
                    release.await();
                    h.clear(s);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    holding.countDown();
                }
            }));
        }
        try {
            assertTrue(holding.await(30, TimeUnit.SECONDS));
            if (failure.get() != null) throw new AssertionError("a holder failed", failure.get());
            assertTrue(h.capacity() >= holders, "grew to " + h.capacity());
            long[] snap = h.snapshot();
            assertEquals(holders, snap.length);
            for (int t = 0; t < holders; t++) assertTrue(HazardSlots.contains(snap, 1000 + t), "holder " + t);
            Set<Integer> distinct = new HashSet<>();
            for (int t = 0; t < holders; t++) distinct.add(slotOf.get(t));
            assertEquals(holders, distinct.size(), "no slot given to two holders");
        } finally {
            release.countDown();
            for (Thread t : ts) t.join(30_000);
        }
        assertEquals(0, h.snapshot().length, "all cleared");
    }

    /**
     * Mutual exclusion of slots under churn with growth: platform and virtual threads protect and
     * clear as fast as they can on a table that starts with 2 slots. Each protect must return a
     * slot nobody else holds (checked with an owner table), and a reference protected for the
     * whole run by one thread is in every snapshot taken meanwhile, across growths.
     */
    @Test
    void noSlotIsGivenToTwoHoldersAndHeldReferencesSurviveGrowth() throws Exception {
        HazardSlots h = new HazardSlots(2);
        long millis = Math.max(300, NovaTestSupport.STRESS_SECONDS * 1000 / 6);
        AtomicIntegerArray owner = new AtomicIntegerArray(1 << 16);
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        LongAdder protections = new LongAdder();
        LongAdder snapshots = new LongAdder();
        long longLived = 0x7777_0000L;
        int longSlot = h.protect(longLived);
        owner.set(longSlot, -1);

        List<Thread> ts = new ArrayList<>();
        int platform = 6;
        int virtual = 32;
        for (int t = 0; t < platform + virtual; t++) {
            int id = t + 1;
            Runnable churn = () -> {
                try {
                    int n = 0;
                    while (!stop.get()) {
                        int s = h.protect(((long) id << 20) | (n & 0xFFFFF) | 1);
                        if (!owner.compareAndSet(s, 0, id)) {
                            violations.add("slot " + s + " given to " + id + " while held by " + owner.get(s));
                        }
                        if ((++n & 15) == 0) Thread.yield(); // let other holders in while we hold
                        owner.compareAndSet(s, id, 0);
                        h.clear(s);
                        protections.increment();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
            ts.add(t < platform ? Thread.ofPlatform().daemon().start(churn) : Thread.ofVirtual().start(churn));
        }
        Thread snapper = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (!stop.get()) {
                    long[] snap = h.snapshot();
                    if (!HazardSlots.contains(snap, longLived)) violations.add("a held reference vanished from a snapshot");
                    for (int i = 1; i < snap.length; i++) {
                        if (snap[i - 1] > snap[i]) violations.add("snapshot not sorted");
                    }
                    snapshots.increment();
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        Thread.sleep(millis);
        stop.set(true);
        for (Thread t : ts) t.join(30_000);
        snapper.join(30_000);
        if (failure.get() != null) throw new AssertionError("a thread failed", failure.get());
        if (!violations.isEmpty()) fail(violations.size() + " violations, first: " + violations.peek());
        assertTrue(HazardSlots.contains(h.snapshot(), longLived));
        h.clear(longSlot);
        assertEquals(0, h.snapshot().length, "everything cleared");
        assertTrue(h.capacity() <= 1 << 16);
        System.out.printf("hazard slots: %d protections, %d snapshots, capacity grew 2 -> %d%n",
                protections.sum(), snapshots.sum(), h.capacity());
        assertTrue(protections.sum() > 1000 && snapshots.sum() > 10, "progress");
    }
}
