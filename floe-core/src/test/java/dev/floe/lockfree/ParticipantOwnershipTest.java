package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Owned participants ({@link Participants}, "Owned participants"): a platform thread keeps the
 * participant it claimed, virtual threads never do, owners are capped, only the owner touches an
 * owned participant while it lives, and an ended owner's participant (and limbo list) is taken
 * back, so threads that come and go neither grow the table nor lose retired nodes.
 */
class ParticipantOwnershipTest {
    private static final int CAP = 4;
    /** Threads each chain of the churn test runs, one after the other, at least. */
    private static final int MIN_GENERATIONS = 20;

    @Test
    void aPlatformThreadKeepsItsParticipantAndOthersCannotBorrowIt() throws Exception {
        Participants ps = new Participants(CAP, 8);
        Participant p = ps.acquire();
        ps.release(p);
        assertEquals(1, ps.ownedCount());
        assertSame(p, ps.acquire(), "the owner gets its participant back");
        ps.release(p);
        assertTrue(!p.tryClaim(), "an owned participant stays claimed between operations");
        Participant[] other = new Participant[1];
        Thread.ofPlatform().start(() -> {
            other[0] = ps.acquire();
            ps.release(other[0]);
        }).join();
        assertNotSame(p, other[0]);
    }

    @Test
    void virtualThreadsBorrowAndGiveBack() throws Exception {
        Participants ps = new Participants(CAP, 8);
        Thread.ofVirtual().start(() -> {
            for (int i = 0; i < 3 * Participants.OWN_RETRY; i++) ps.release(ps.acquire());
        }).join();
        assertEquals(0, ps.ownedCount());
        for (Participant p : ps.all()) {
            assertTrue(p.tryClaim(), "every participant is free again");
            p.unclaim();
        }
    }

    @Test
    void ownersAreCappedAndTheRestBorrow() throws Exception {
        Participants ps = new Participants(CAP, 8);
        int threads = CAP + 3;
        CountDownLatch acquired = new CountDownLatch(threads);
        CountDownLatch done = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = Thread.ofPlatform().start(() -> {
                ps.release(ps.acquire());
                acquired.countDown();
                await(done);
            });
        }
        acquired.await();
        assertEquals(CAP, ps.ownedCount());
        int free = 0;
        for (Participant p : ps.all()) {
            if (p.tryClaim()) {
                free++;
                p.unclaim();
            }
        }
        assertEquals(ps.all().length - CAP, free, "exactly the owned participants stay claimed");
        done.countDown();
        for (Thread t : ts) t.join();
    }

    @Test
    void aLiveOwnersLimboListIsItsOwnAndAnEndedOnesIsTakenBack() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 64); // no pass before 64 retires
            LockFreeLongMap m = new HarrisMichaelList(rec);
            CountDownLatch retired = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread owner = Thread.ofPlatform().start(() -> {
                insertThenRemove(m, 0, 10, 10);
                retired.countDown();
                await(done);
            });
            retired.await();
            rec.reclaimIdle();
            assertEquals(10, rec.stats().inLimbo(), "another thread must not touch a live owner's limbo list");
            assertEquals(1, rec.participants.ownedCount());
            done.countDown();
            owner.join();
            rec.reclaimIdle();
            Reclamation.Stats s = rec.stats();
            assertEquals(0, s.inLimbo(), "an ended owner's limbo list is reclaimed: " + s);
            assertEquals(10, s.freed());
            assertEquals(0, rec.participants.ownedCount(), "and its participant returned to borrowing");
            m.close();
        }
    }

    @Test
    void anOwnerFreesItsOwnLimboListWithReclaimIdle() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaBit(alloc, 64);
            LockFreeLongMap m = new MichaelHashTable(rec, 16);
            insertThenRemove(m, 0, 10, 10);
            assertEquals(10, rec.stats().inLimbo());
            rec.reclaimIdle();
            assertEquals(0, rec.stats().inLimbo());
            assertEquals(10, rec.stats().freed());
            m.close();
        }
    }

    @Test
    void aDetachingOwnerFreesItsLimboListAndHandsItsParticipantOn() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 64); // no pass before 64 retires
            LockFreeLongMap m = new HarrisMichaelList(rec);
            CountDownLatch detached = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            boolean[] owned = new boolean[2];
            Participant[] held = new Participant[1];
            Thread owner = Thread.ofPlatform().start(() -> {
                insertThenRemove(m, 0, 10, 10);
                held[0] = rec.participants.acquire();
                rec.participants.release(held[0]);
                owned[0] = rec.detachCurrentThread();
                owned[1] = rec.detachCurrentThread();
                detached.countDown();
                await(done); // alive: nothing is taken back from an ended owner here
            });
            detached.await();
            assertTrue(owned[0], "the thread owned its participant");
            assertTrue(!owned[1], "and owns none after detaching");
            Reclamation.Stats s = rec.stats();
            assertEquals(0, s.inLimbo(), "detaching frees the owner's limbo list: " + s);
            assertEquals(10, s.freed());
            assertEquals(0, rec.participants.ownedCount());
            assertEquals(null, held[0].ownerSeenByOthers(), "no owner, so a borrower's release returns it");
            assertTrue(held[0].tryClaim(), "the participant is free to borrow while its former owner lives");
            held[0].unclaim();
            done.countDown();
            owner.join();
            m.close();
        }
    }

    @Test
    void ownersThatDetachLeaveRoomForOtherOwnersAndMayComeBack() throws Exception {
        Participants ps = new Participants(CAP, 8);
        int threads = 3 * CAP;
        CountDownLatch done = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        boolean[] ownedBeforeDetach = new boolean[threads];
        for (int i = 0; i < threads; i++) {
            final int id = i;
            // one after the other, each alive until the end: without the detach the first CAP own
            // and the rest borrow; with it every one of them owns in turn
            ts[i] = Thread.ofPlatform().start(() -> {
                Participant p = ps.acquire();
                ps.release(p);
                ownedBeforeDetach[id] = ps.acquire() == p && !p.tryClaim();
                ps.release(p);
                ps.disown(q -> { });
                await(done);
            });
            // until it waits for the end (or died: the assertion below then fails, no spin for ever)
            while (ts[i].getState() != Thread.State.WAITING && ts[i].isAlive()) Thread.onSpinWait();
        }
        for (int i = 0; i < threads; i++) assertTrue(ownedBeforeDetach[i], "thread " + i + " owned its participant");
        assertEquals(0, ps.ownedCount());
        assertEquals(CAP, ps.all().length, "the table did not grow");
        boolean[] again = new boolean[1];
        Thread.ofPlatform().start(() -> {
            ps.release(ps.acquire());
            ps.disown(q -> { });
            Participant p = ps.acquire();
            ps.release(p);
            again[0] = ps.ownedCount() == 1 && !p.tryClaim();
        }).join();
        assertTrue(again[0], "a thread that detached owns again on its next operation");
        done.countDown();
        for (Thread t : ts) t.join();
    }

    @Test
    void detachingAThreadThatOwnsNothingChangesNothing() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaBit(alloc, 64);
            LockFreeLongMap m = new MichaelHashTable(rec, 16);
            boolean[] owned = {true};
            Thread.ofVirtual().start(() -> {
                insertThenRemove(m, 0, 10, 10);
                owned[0] = rec.detachCurrentThread();
            }).join();
            assertTrue(!owned[0], "virtual threads never own");
            assertEquals(0, rec.participants.ownedCount());
            m.close();
        }
    }

    @Test
    void threadsThatComeAndGoReuseTheEndedOwnersParticipants() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.epochs(alloc, 8);
            LockFreeLongMap m = new MichaelHashTable(rec, 64);
            int initial = rec.stats().participants();
            for (int i = 0; i < 100; i++) {
                long base = i * 10L;
                Thread.ofPlatform().start(() -> insertThenRemove(m, base, 10, 5)).join();
            }
            assertEquals(initial, rec.stats().participants(), "one thread at a time needs no more participants");
            rec.reclaimIdle();
            Reclamation.Stats s = rec.stats();
            assertEquals(0, s.inLimbo(), "ended owners' limbo lists are reclaimed: " + s);
            assertEquals(s.retired(), s.freed());
            assertEquals(500, m.size());
            m.close();
        }
    }

    /** Inserts keys {@code [from, from + inserted)}, then removes the first {@code removed} of them. */
    private static void insertThenRemove(LockFreeLongMap m, long from, int inserted, int removed) {
        for (long k = from; k < from + inserted; k++) m.insert(k, k);
        for (long k = from; k < from + removed; k++) m.remove(k);
    }

    /** Waits for {@code latch} in a thread that stays alive (an owner) until the test lets it end. */
    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Stream<Arguments> churnCases() {
        return Stream.of(
                Arguments.of("list", "oa-bit"), Arguments.of("list", "oa-ver"), Arguments.of("list", "floe-ebr"),
                Arguments.of("hash", "oa-bit"), Arguments.of("hash", "oa-ver"), Arguments.of("hash", "floe-ebr"));
    }

    /**
     * Churn: each of four key owners ({@link OwnedKeysStressTest#ownedKeyOps}) is played by a
     * chain of short-lived platform threads, each running a few hundred checked operations and
     * ending, so participants pass from ended owners to new threads while the other chains run;
     * some threads also detach ({@link Reclamation#detachCurrentThread}) halfway, going on
     * afterwards, or just before they end.
     * Every result is checked against the owner's model; no CAS may act on a node of another
     * incarnation; the table stays within the owner cap plus the concurrent borrowers; and every
     * retired node is freed once the threads have ended.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("churnCases")
    void churningThreadsKeepEveryResultAndEveryNode(String kind, String scheme) throws Exception {
        int owners = 4;
        int keys = kind.equals("list") ? 64 : 512;
        long end = System.nanoTime() + 600_000_000L;
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Schemes.of(scheme, alloc, 8);
            LockFreeLongMap m = Schemes.structure(kind, rec, keys / 8);
            int initial = rec.stats().participants();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[][] models = new long[owners][keys / owners];
            int[] generations = new int[owners];
            Thread[] chains = new Thread[owners];
            for (int o = 0; o < owners; o++) {
                final int id = o;
                chains[o] = Thread.ofPlatform().start(() -> {
                    SplittableRandom rnd = new SplittableRandom(id * 31L + 7);
                    long[] seq = {1};
                    try {
                        // at least the time and MIN_GENERATIONS threads (a busy host schedules
                        // the chain's join late), at most a minute
                        while ((System.nanoTime() < end || generations[id] < MIN_GENERATIONS)
                                && System.nanoTime() < end + 60_000_000_000L && failure.get() == null) {
                            int gen = generations[id];
                            Thread worker = Thread.ofPlatform().start(() -> {
                                try {
                                    for (int b = 0; b < 4; b++) {
                                        seq[0] = OwnedKeysStressTest.ownedKeyOps(m, id, owners, models[id], rnd, seq[0]);
                                        // every other thread hands its participant back halfway and
                                        // goes on (borrowing, then owning again)
                                        if (b == 1 && gen % 2 == 1) rec.detachCurrentThread();
                                    }
                                    if (gen % 3 == 0) rec.detachCurrentThread(); // and every third before it ends
                                } catch (Throwable e) {
                                    failure.compareAndSet(null, e);
                                }
                            });
                            if (!worker.join(Duration.ofMinutes(1))) {
                                failure.compareAndSet(null, new AssertionError("an operation did not return within a minute"));
                                return;
                            }
                            generations[id]++;
                        }
                    } catch (InterruptedException e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            for (Thread c : chains) c.join();
            if (failure.get() != null) throw new AssertionError(scheme + ": " + failure.get().getMessage(), failure.get());
            for (int g : generations) assertTrue(g >= MIN_GENERATIONS, "too few thread generations in a minute: " + g);
            assertEquals(0, m.incarnationMismatches(), "CASes on a node of another incarnation");
            assertTrue(rec.stats().participants() <= 2 * initial,
                    "owned participants are capped and ended owners' are reused: " + rec.stats());
            for (int id = 0; id < owners; id++) {
                for (int slot = 0; slot < models[id].length; slot++) {
                    long k = (long) slot * owners + id;
                    assertEquals(models[id][slot], m.get(k, 0), "key " + k);
                }
            }
            rec.reclaimIdle();
            Reclamation.Stats s = rec.stats();
            assertEquals(0, s.inLimbo(), "every limbo list is reclaimed once the threads have ended: " + s);
            assertEquals(s.retired(), s.freed(), "every retired node freed exactly once: " + s);
            m.close();
        }
    }

    /**
     * The common pool clears its workers' thread-locals after every task, where a thread's seat
     * (and the participant it owns) is kept. Each task used to own another participant: one live
     * worker held the whole cap. Now a new seat finds the participant its thread owns.
     */
    @Test
    void aPoolWorkerWhoseThreadLocalsAreClearedOwnsOneParticipant() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc);
            java.util.Set<Thread> workers = java.util.concurrent.ConcurrentHashMap.newKeySet();
            try (MichaelHashTable t = new MichaelHashTable(rec, 1000)) {
                for (int task = 0; task < 50; task++) {
                    long base = task * 100L;
                    onCommonPool(workers, () -> {
                        for (long k = 0; k < 40; k++) t.insert(base + k, k);
                        for (long k = 0; k < 40; k++) t.remove(base + k);
                    });
                }
            }
            assertTrue(rec.participants.ownedCount() <= workers.size(),
                    rec.participants.ownedCount() + " participants owned by " + workers.size() + " threads");
        }
    }

    /**
     * docs/lockfree.md, "Limits": have each worker detach before it finishes. A pool worker that
     * detaches in a later task than the one that made it an owner gives its participant (and
     * limbo list) back; before, it was told it owned nothing and the retired nodes stayed in
     * limbo for the worker's life.
     */
    @Test
    void aPoolWorkerDetachingInALaterTaskLeavesNothingInLimbo() {
        try (FloeAllocator alloc = Schemes.allocator()) {
            long baseline = alloc.stats().liveBytes();
            Reclamation rec = Reclamation.oaVer(alloc);
            java.util.Set<Thread> workers = java.util.concurrent.ConcurrentHashMap.newKeySet();
            MichaelHashTable t = new MichaelHashTable(rec, 1000);
            for (int task = 0; task < 10; task++) {
                long base = task * 100L;
                onCommonPool(workers, () -> {
                    for (long k = 0; k < 20; k++) t.insert(base + k, k);
                    for (long k = 0; k < 20; k++) t.remove(base + k);
                });
            }
            java.util.concurrent.atomic.AtomicBoolean detached = new java.util.concurrent.atomic.AtomicBoolean();
            for (int i = 0; i < 4; i++) onCommonPool(workers, () -> detached.compareAndSet(false, rec.detachCurrentThread()));
            t.close();
            rec.detachCurrentThread();
            rec.reclaimIdle();
            assertTrue(detached.get(), "a worker that owned a participant was told it owned none");
            assertEquals(0, rec.stats().inLimbo(), "retired nodes stranded in limbo");
            assertEquals(0, alloc.stats().liveBytes() - baseline, "bytes leaked");
        }
    }

    private static void onCommonPool(java.util.Set<Thread> workers, Runnable task) {
        java.util.concurrent.CompletableFuture.runAsync(() -> {
            workers.add(Thread.currentThread());
            task.run();
        }, java.util.concurrent.ForkJoinPool.commonPool()).join();
    }
}
