package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The 3-epoch rule, shields blocking reclamation, and liveness: ejection of stalled threads. */
class EpochReclamationTest {
    private FloeAllocator alloc;

    @BeforeEach
    void setUp() {
        alloc = FloeAllocator.builder().regionSize(1L << 30).build();
    }

    @AfterEach
    void tearDown() {
        alloc.close();
    }

    @Test
    void anAbandonedObjectWaitsThreeEpochs() {
        ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(1, 1_000_000)); // every abandon drains
        EpochReclaimer r = heap.reclaimer();
        Owner o = heap.create(8);
        long stamp = heap.epoch();
        o.abandon(); // drains: stamped with the epoch now, then one advance
        while (heap.epoch() < stamp + EpochReclaimer.GRACE_EPOCHS) {
            assertEquals(0, heap.freedCount(), "freed at epoch " + heap.epoch() + ", stamp " + stamp);
            r.collect(null); // one advance (nobody participates), then the sweep
        }
        assertEquals(stamp + EpochReclaimer.GRACE_EPOCHS, heap.epoch());
        assertEquals(1, heap.freedCount());
    }

    @Test
    void aShieldedObjectIsNeverFreedAndGoesOnceTheShieldCloses() {
        ManualHeap heap = new ManualHeap(alloc);
        Owner o = heap.create(8);
        Shield s = o.defend();
        s.setLong(0, 11);
        o.abandon();
        for (int i = 0; i < 10; i++) heap.reclaim();
        assertEquals(1, heap.waiting());
        assertEquals(11, s.getLong(0));
        s.close();
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.freedCount());
    }

    @Test
    void aLaggingParticipantBlocksTheEpochUntilTheThresholdThenIsEjected() throws Exception {
        ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(8, 64));
        Owner held = heap.create(8);
        CountDownLatch defended = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            try (Shield s = held.defend()) {
                defended.countDown();
                resume.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        defended.await();
        long e0 = heap.epoch();
        heap.reclaim(); // t is at e0: the first advance passes, the next is blocked
        assertEquals(e0 + 1, heap.epoch());
        assertEquals(0, heap.ejections());
        for (int i = 0; i < 100; i++) heap.create(16).abandon(); // past the threshold of 64
        heap.reclaim();
        assertTrue(heap.ejections() >= 1);
        assertTrue(heap.epoch() > e0 + 3);
        resume.countDown();
        t.join();
    }

    /** A thread that used shields and now idles (none open) never holds the epoch back. */
    @Test
    void anIdleThreadIsEjectedAtOnceAndRejoinsWhenItDefendsAgain() throws Exception {
        ManualHeap heap = new ManualHeap(alloc); // threshold 1024: only idleness can eject here
        Owner o = heap.create(8);
        try (Shield s = o.defend()) { s.setLong(0, 5); }
        CountDownLatch idle = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicLong readLater = new AtomicLong();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                try (Shield s = o.defend()) { s.getLong(0); }
                idle.countDown();
                resume.await(); // alive, registered, no shield open, epoch not advancing
                try (Shield s = o.defend()) { readLater.set(s.getLong(0)); }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        idle.await();
        Owner garbage = heap.create(8);
        garbage.abandon();
        assertEquals(0, heap.reclaim(), "the idle thread did not block the epoch");
        assertTrue(heap.ejections() >= 1);
        resume.countDown();
        t.join();
        assertEquals(5, readLater.get());
    }

    /**
     * The liveness test: a thread parks holding a shield; everything it does not protect
     * is reclaimed; when it wakes, its shield still reads its object, and its next defend rejoins.
     */
    @Test
    void aParkedThreadHoldingAShieldDoesNotStopReclamationAndResumesCorrectly() throws Exception {
        ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(16, 128));
        Owner held = heap.create(64);
        try (Shield s = held.defend()) { s.setLong(0, 0xC0FFEE); }
        Owner next = heap.create(64);
        try (Shield s = next.defend()) { s.setLong(0, 0xBEEF); }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong readAfterWake = new AtomicLong();
        AtomicLong readNext = new AtomicLong();
        CountDownLatch defended = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1); // not park(): it may return spuriously
        Thread parked = Thread.ofPlatform().start(() -> {
            try (Shield s = held.defend()) {
                defended.countDown();
                wake.await(); // stalls while a participant, holding the shield
                readAfterWake.set(s.getLong(0));
                s.defend(next); // ejected meanwhile: the commit fails, it rejoins and replays
                readNext.set(s.getLong(0));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        defended.await();
        held.abandon(); // the parked thread's object: must survive
        long freedBefore = heap.freedCount();
        List<Owner> garbage = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) garbage.add(heap.create(64));
        for (Owner g : garbage) g.abandon();
        assertEquals(1, heap.reclaim(), "everything but the parked thread's object is reclaimed");
        assertEquals(freedBefore + 2_000, heap.freedCount());
        assertTrue(heap.ejections() >= 1, "the parked thread was ejected");
        long rejoinsBefore = heap.rejoins();
        wake.countDown();
        parked.join();
        assertNull(failure.get());
        assertEquals(0xC0FFEE, readAfterWake.get());
        assertEquals(0xBEEF, readNext.get());
        assertTrue(heap.rejoins() > rejoinsBefore, "the woken thread rejoined");
        assertEquals(0, heap.reclaim(), "its object goes once its shield closed");
    }

    /** A thread that ends while holding a shield: its record and its protection go with it. */
    @Test
    void aThreadThatDiesHoldingAShieldReleasesItsRecordAndItsObject() throws Exception {
        ManualHeap heap = new ManualHeap(alloc);
        Owner o = heap.create(8);
        Thread t = Thread.ofPlatform().start(() -> {
            Shield s = o.defend(); // never closed
            s.getLong(0);
        });
        t.join();
        assertEquals(1, heap.participants());
        o.abandon();
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.freedCount());
        assertEquals(0, heap.participants());
    }

    /**
     * The common pool clears its workers' thread-locals after every task, so each task's first
     * shield finds no participant in the heap's thread-local: it must get its thread's record
     * back, not register another one that stays as long as the worker lives.
     */
    @Test
    void poolWorkersWhoseThreadLocalsAreClearedKeepOneRecordEach() {
        ManualHeap heap = new ManualHeap(alloc);
        Owner o = heap.create(8);
        java.util.Set<Thread> workers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 2_000; i++) {
            java.util.concurrent.CompletableFuture.runAsync(() -> {
                workers.add(Thread.currentThread());
                try (Shield s = o.defend()) {
                    s.getLong(0);
                }
            }, java.util.concurrent.ForkJoinPool.commonPool()).join();
        }
        assertTrue(heap.participants() <= workers.size(),
                heap.participants() + " records for " + workers.size() + " pool workers");
        o.abandon();
        assertEquals(0, heap.reclaim());
    }

    /**
     * Ten thousand live virtual threads that each defend once: each registers one record, an
     * advance with all of them registered passes them (they acknowledged the epoch they joined
     * at), and their records are dropped once they end. Joins cost O(1) amortized
     * ({@link ParticipantRegistry}); with the copy-on-write array they cost O(n) each.
     */
    @Test
    void manyLiveVirtualThreadsEachRegisterOneRecordAndGiveItBack() throws Exception {
        ManualHeap heap = new ManualHeap(alloc);
        Owner o = heap.create(8);
        try (Shield s = o.defend()) {
            s.setLong(0, 77);
        }
        int n = 10_000;
        java.util.concurrent.CountDownLatch defended = new java.util.concurrent.CountDownLatch(n);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Shield s = o.defend()) {
                    if (s.getLong(0) != 77) wrong.incrementAndGet();
                }
                defended.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        defended.await();
        assertEquals(0, wrong.get());
        assertEquals(n + 1, heap.participants());
        long epoch = heap.epoch();
        heap.reclaim(); // rounds of the protocol over every record: idle ones are ejected, not waited for
        assertTrue(heap.epoch() > epoch, "the epoch advanced past " + n + " idle participants");
        release.countDown();
        for (Thread t : threads) t.join();
        o.abandon();
        assertEquals(0, heap.reclaim());
        assertEquals(1, heap.participants(), "the ended threads' records are dropped");
    }
}
