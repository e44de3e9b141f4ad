package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link RetireBatches} (its class comment): every reference added is handed to the drain exactly
 * once — through a full batch sealed by whichever thread filled it or helped, through
 * {@link RetireBatches#drainAll()}, or through the pending queue when an adder was slow between
 * reserving its index and storing — and never twice; and re-adding from inside the drain (what
 * Nova does with slices a hazard slot still holds) works.
 */
class RetireBatchesTest {

    /** Records every drained reference; a second delivery of one is a failure. */
    private static final class Recorder implements RetireBatches.Drain {
        final Map<Long, Integer> delivered = new ConcurrentHashMap<>();
        final List<String> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
        final LongAdder drains = new LongAdder();

        @Override
        public void drain(long[] refs, int count) {
            drains.increment();
            for (int i = 0; i < count; i++) {
                long r = refs[i];
                if (r == 0) duplicates.add("a drain was handed 0 at index " + i + " of " + count);
                Integer before = delivered.putIfAbsent(r, 1);
                if (before != null) duplicates.add("reference " + r + " drained twice");
            }
        }

        void assertExactlyOnce(long expected) {
            assertTrue(duplicates.isEmpty(), () -> duplicates.size() + " bad deliveries, first: " + duplicates.getFirst());
            assertEquals(expected, delivered.size(), "every added reference was drained");
        }
    }

    @Test
    void argumentsAreChecked() {
        RetireBatches.Drain none = (refs, n) -> fail("no drain expected");
        assertThrows(IllegalArgumentException.class, () -> new RetireBatches(0, 8, none));
        assertThrows(IllegalArgumentException.class, () -> new RetireBatches(-3, 8, none));
        assertThrows(IllegalArgumentException.class, () -> new RetireBatches(4, 6, none));
        assertThrows(IllegalArgumentException.class, () -> new RetireBatches(4, 0, none));
        RetireBatches b = new RetireBatches(4, 8, none);
        assertThrows(IllegalArgumentException.class, () -> b.add(0));
        b.drainAll(); // nothing added: no drain
        assertEquals(0, b.waiting());
        int stripes = RetireBatches.defaultStripes();
        assertEquals(1, Integer.bitCount(stripes));
        assertTrue(stripes >= 8 && stripes <= 64);
    }

    /**
     * A batch another thread sealed is out of every stripe while that thread drains it, so
     * drainAll could not see it and returned while its references were still on their way (an
     * allocation of handles from several threads was refused with half the table live). drainAll
     * now waits for such drains, for at most {@link RetireBatches#SETTLE_NANOS}: it never returns
     * before the other drain ended unless it waited that long, and a drain that never ends holds
     * it up only that long.
     */
    @ParameterizedTest
    @ValueSource(longs = {20, 10_000})
    void drainAllWaitsForADrainRunningOnAnotherThread(long drainMillis) throws Exception {
        CountDownLatch inDrain = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean otherDrainEnded = new AtomicBoolean();
        Thread drainer = Thread.currentThread();
        RetireBatches b = new RetireBatches(2, 1, (refs, n) -> {
            if (Thread.currentThread() == drainer) return; // drainAll's own (empty) work
            inDrain.countDown();
            try {
                release.await(drainMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            otherDrainEnded.set(true);
        });
        Thread other = Thread.ofPlatform().start(() -> {
            b.add(1);
            b.add(2); // fills and seals the batch: this thread drains it
        });
        try {
            assertTrue(inDrain.await(10, TimeUnit.SECONDS));
            long start = System.nanoTime();
            b.drainAll();
            long waited = System.nanoTime() - start;
            boolean ended = otherDrainEnded.get();
            assertTrue(ended || waited >= RetireBatches.SETTLE_NANOS,
                    "drainAll returned after " + waited / 1_000_000 + " ms with the other drain still running");
            if (drainMillis > 1_000) {
                assertTrue(!ended && waited < 5_000_000_000L, "a drain that does not end holds drainAll up " + waited / 1_000_000 + " ms");
            }
        } finally {
            release.countDown();
            other.join(10_000);
        }
    }

    @Test
    void aFullBatchIsDrainedByTheThreadThatFillsIt() {
        Recorder rec = new Recorder();
        RetireBatches b = new RetireBatches(3, 1, rec);
        b.add(11);
        b.add(12);
        assertEquals(2, b.waiting());
        assertEquals(0, rec.drains.sum(), "not full yet");
        b.add(13);
        assertEquals(1, rec.drains.sum(), "the third add sealed and drained the batch");
        assertEquals(0, b.waiting());
        b.add(14);
        b.drainAll();
        rec.assertExactlyOnce(4);
        assertEquals(0, b.waiting());
        b.drainAll();
        assertEquals(2, rec.drains.sum(), "drainAll on empty batches drains nothing");
    }

    /**
     * Threads that start retiring one after another get stripes of their own (round-robin homes),
     * whatever their thread ids: six threads, with ids spread by threads created in between (as
     * in any real program), each add one reference less than a batch holds, so no batch fills
     * unless two of them share a stripe. (Hashing their thread ids onto the 8 stripes, as before,
     * fails this for most seeds.) Another test's thread retiring meanwhile takes a home too, so
     * the six get six of at most eight consecutive homes: still distinct modulo 8.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void threadsThatStartRetiringInTurnGetStripesOfTheirOwn(long seed) throws Exception {
        Recorder rec = new Recorder();
        RetireBatches b = new RetireBatches(4, 8, rec);
        AtomicLong next = new AtomicLong(1);
        java.util.SplittableRandom gaps = new java.util.SplittableRandom(seed);
        for (int t = 0; t < 6; t++) {
            for (int g = gaps.nextInt(40); g > 0; g--) new Thread(() -> {}); // takes a thread id, never runs
            Thread adder = new Thread(() -> {
                for (int i = 0; i < 3; i++) b.add(next.getAndIncrement());
            });
            adder.start();
            adder.join();
        }
        assertEquals(0, rec.drains.sum(), "a batch filled: two threads shared a stripe");
        assertEquals(18, b.waiting());
        b.drainAll();
        rec.assertExactlyOnce(18);
    }

    @ParameterizedTest(name = "capacity {0}, stripes {1}, {2} threads")
    @CsvSource({"1, 8, 4", "2, 1, 8", "7, 8, 6", "64, 2, 8", "1000, 8, 4"})
    void everyAddedReferenceIsDrainedExactlyOnce(int capacity, int stripes, int threads) throws Exception {
        Recorder rec = new Recorder();
        RetireBatches b = new RetireBatches(capacity, stripes, rec);
        int perThread = 40_000;
        runAdders(threads, perThread, b);
        b.drainAll();
        rec.assertExactlyOnce((long) threads * perThread);
        assertEquals(0, b.waiting(), "nothing waits after drainAll with no adder running");
    }

    /**
     * Adders race with {@code drainAll()} callers and with each other on few stripes, more threads
     * than cores: batches are sealed while adders sit between reserving an index and storing, so
     * the pending queue is used. Whatever the interleaving, after the adders finished one more
     * {@code drainAll()} delivers the rest, and nothing is delivered twice.
     */
    @ParameterizedTest(name = "capacity {0}, stripes {1}, {2} threads")
    @CsvSource({"2, 1, 8", "3, 2, 12", "16, 1, 8"})
    void drainAllRacingAddersDeliversEverythingExactlyOnce(int capacity, int stripes, int threads) throws Exception {
        Recorder rec = new Recorder();
        RetireBatches b = new RetireBatches(capacity, stripes, rec);
        int perThread = 30_000;
        AtomicBoolean adding = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> drainers = new ArrayList<>();
        for (int d = 0; d < 2; d++) {
            drainers.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (adding.get()) {
                        b.drainAll();
                        long w = b.waiting();
                        if (w < 0) throw new AssertionError("negative waiting count " + w);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        try {
            runAdders(threads, perThread, b);
        } finally {
            adding.set(false);
            for (Thread d : drainers) d.join(30_000);
        }
        if (failure.get() != null) throw new AssertionError("a drainer failed", failure.get());
        b.drainAll();
        rec.assertExactlyOnce((long) threads * perThread);
        assertEquals(0, b.waiting());
    }

    /** Virtual threads add too (more adders than carriers; any thread model must work). */
    @Test
    void virtualThreadAddersAreDrainedExactlyOnce() throws Exception {
        Recorder rec = new Recorder();
        RetireBatches b = new RetireBatches(5, 8, rec);
        int threads = 200;
        int perThread = 1_000;
        List<Thread> ts = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            long base = (long) (t + 1) << 32;
            ts.add(Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 1; i <= perThread; i++) {
                        b.add(base | i);
                        if ((i & 127) == 0) Thread.yield();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread t : ts) t.join(60_000);
        if (failure.get() != null) throw new AssertionError("an adder failed", failure.get());
        b.drainAll();
        rec.assertExactlyOnce((long) threads * perThread);
    }

    @ParameterizedTest(name = "capacity {0}")
    @CsvSource({"1", "2", "8", "100"})
    void reAddingFromInsideTheDrainDeliversTheReferenceAgain(int capacity) throws Exception {
        // the drain re-adds every reference the first time it sees it: each must arrive exactly twice
        Map<Long, AtomicInteger> seen = new ConcurrentHashMap<>();
        AtomicReference<RetireBatches> self = new AtomicReference<>();
        RetireBatches b = new RetireBatches(capacity, 4, (refs, n) -> {
            long[] again = new long[n];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (seen.computeIfAbsent(refs[i], r -> new AtomicInteger()).incrementAndGet() == 1) again[k++] = refs[i];
            }
            for (int i = 0; i < k; i++) self.get().add(again[i]);
        });
        self.set(b);
        int threads = 4;
        int perThread = 5_000;
        runAdders(threads, perThread, b);
        b.drainAll();
        b.drainAll(); // the re-adds of the first drainAll's drains
        assertEquals((long) threads * perThread, seen.size());
        for (Map.Entry<Long, AtomicInteger> e : seen.entrySet()) {
            assertEquals(2, e.getValue().get(), "reference " + e.getKey() + " delivered " + e.getValue() + " times");
        }
        assertEquals(0, b.waiting());
    }

    /**
     * What Nova's retire does: a reference that cannot be freed yet (a hazard slot holds it) is
     * re-added from inside the drain, until whoever holds it lets go. {@code add} must still
     * finish in a bounded number of its own steps (lock-freedom) — it must not keep draining the
     * same held reference, recursing, until the holder comes back.
     */
    @ParameterizedTest(name = "capacity {0}, {1} held")
    @CsvSource({"1, 1", "4, 4", "8, 1"})
    void reAddingAHeldReferenceDoesNotWaitForItsHolder(int capacity, int held) throws Exception {
        AtomicBoolean holding = new AtomicBoolean(true);
        Map<Long, AtomicInteger> freed = new ConcurrentHashMap<>();
        AtomicReference<RetireBatches> self = new AtomicReference<>();
        LongAdder drains = new LongAdder();
        RetireBatches b = new RetireBatches(capacity, 1, (refs, n) -> {
            drains.increment();
            List<Long> keep = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (refs[i] <= held && holding.get()) keep.add(refs[i]);
                else freed.computeIfAbsent(refs[i], r -> new AtomicInteger()).incrementAndGet();
            }
            for (long r : keep) self.get().add(r);
        });
        self.set(b);
        CountDownLatch added = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread adder = Thread.ofPlatform().daemon().start(() -> {
            try {
                for (long r = 1; r <= held; r++) b.add(r); // the held references
                for (long r = held + 1; r <= 100; r++) b.add(r);
                added.countDown();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
                added.countDown();
            }
        });
        try {
            boolean returned = added.await(10, TimeUnit.SECONDS);
            if (failure.get() instanceof StackOverflowError) {
                throw new AssertionError("add() re-drained the held references recursively ("
                        + drains.sum() + " drains) until the stack overflowed, instead of leaving them "
                        + "for a later drain", failure.get());
            }
            if (failure.get() != null) throw new AssertionError("the adder failed", failure.get());
            assertTrue(returned, "add() returned while the references were still held");
        } finally {
            holding.set(false);
            adder.join(10_000);
        }
        b.drainAll();
        b.drainAll();
        for (long r = 1; r <= 100; r++) {
            AtomicInteger n = freed.get(r);
            assertEquals(1, n == null ? 0 : n.get(), "reference " + r + " freed exactly once");
        }
    }

    /** {@code threads} threads each add {@code perThread} distinct references. */
    private static void runAdders(int threads, int perThread, RetireBatches b) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long base = (long) (t + 1) << 32;
            ts.add(Thread.ofPlatform().daemon().name("adder-" + t).start(() -> {
                try {
                    go.await();
                    for (int i = 1; i <= perThread; i++) {
                        b.add(base | i);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        go.countDown();
        for (Thread t : ts) {
            t.join(60_000);
            if (t.isAlive()) fail(t.getName() + " did not finish");
        }
        if (failure.get() != null) throw new AssertionError("an adder failed", failure.get());
    }
}
