package dev.floe.manual;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The participant table of a heap: joins find their record, scans see every registered record,
 * records of ended threads are dropped when the table fills, and the table stays within a
 * constant factor of the live participants.
 */
class ParticipantRegistryTest {
    private final List<Participant> retired = new ArrayList<>();
    private ParticipantRegistry registry;

    private ParticipantRegistry newRegistry() {
        registry = new ParticipantRegistry(p -> {
            p.retire();
            retired.add(p);
            registry.remove(p);
        });
        return registry;
    }

    @Test
    void aThreadFindsTheRecordItAdded() {
        ParticipantRegistry r = newRegistry();
        Thread me = Thread.currentThread();
        assertNull(r.find(me));
        Participant p = r.add(new Participant(me));
        assertSame(p, r.find(me));
        assertEquals(1, r.size());
        assertEquals(Set.of(p), scan(r));
        p.retire();
        r.remove(p);
        r.remove(p); // a second removal is a no-op
        assertNull(r.find(me));
        assertEquals(0, r.size());
        assertEquals(Set.of(), scan(r));
    }

    /** Growth keeps every record where a scan finds it; freed slots are reused before the table grows. */
    @Test
    void scansSeeEveryRecordOfLiveThreadsAcrossGrowth() throws Exception {
        ParticipantRegistry r = newRegistry();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = parked(1_000, release);
        try {
            Set<Participant> added = new HashSet<>();
            for (Thread t : threads) added.add(r.add(new Participant(t)));
            assertEquals(1_000, r.size());
            assertEquals(added, scan(r));
            for (Thread t : threads) assertSame(t, r.find(t).thread());
            assertTrue(retired.isEmpty(), "live threads' records are never dropped: " + retired.size());
            assertTrue(r.table().length <= 2_048, "table of " + r.table().length + " slots for 1,000 records");
        } finally {
            release.countDown();
            for (Thread t : threads) t.join();
        }
    }

    /**
     * Threads that each join once and end, with no advance to drop their records: the join that
     * finds the table full hands the ended threads' records to the cleanup, so the table never
     * grows past a few times the live participants (here one at a time).
     */
    @Test
    void recordsOfEndedThreadsAreDroppedWhenTheTableFills() throws Exception {
        ParticipantRegistry r = newRegistry();
        for (int i = 0; i < 5_000; i++) {
            AtomicReference<Participant> added = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> added.set(r.add(new Participant(Thread.currentThread()))));
            t.join();
            assertSame(added.get(), r.find(t));
        }
        assertTrue(r.table().length <= 16, "table of " + r.table().length + " slots for one live thread at a time");
        assertTrue(r.size() <= 16, r.size() + " records registered");
        assertTrue(retired.size() >= 5_000 - 16, retired.size() + " records of ended threads retired");
        for (Participant p : retired) {
            assertEquals(Participant.RETIRED, p.state());
            assertNull(r.find(p.thread()), "a dropped record is not found");
        }
    }

    /** Concurrent joins from many virtual threads: none lost, none registered twice. */
    @Test
    void concurrentJoinsRegisterEveryThreadOnce() throws Exception {
        ParticipantRegistry r = newRegistry();
        int n = 4_000;
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch joined = new CountDownLatch(n);
        Set<Participant> added = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                added.add(r.add(new Participant(Thread.currentThread())));
                joined.countDown();
                awaitQuietly(release);
            }));
        }
        try {
            joined.await();
            assertEquals(n, added.size());
            assertEquals(n, r.size());
            assertEquals(added, scan(r));
        } finally {
            release.countDown();
            for (Thread t : threads) t.join();
        }
    }

    private static Set<Participant> scan(ParticipantRegistry r) {
        Set<Participant> seen = new HashSet<>();
        Participant[] t = r.table();
        for (int i = 0; i < t.length; i++) {
            Participant p = ParticipantRegistry.at(t, i);
            if (p != null) assertTrue(seen.add(p), "a record in two slots");
        }
        return seen;
    }

    private static List<Thread> parked(int n, CountDownLatch release) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) threads.add(Thread.ofVirtual().start(() -> awaitQuietly(release)));
        return threads;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
