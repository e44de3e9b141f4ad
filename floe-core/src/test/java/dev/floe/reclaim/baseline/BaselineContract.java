package dev.floe.reclaim.baseline;

import static dev.floe.reclaim.baseline.BaselineTestSupport.FAILED;
import static dev.floe.reclaim.baseline.BaselineTestSupport.STRESS_SECONDS;
import static dev.floe.reclaim.baseline.BaselineTestSupport.await;
import static dev.floe.reclaim.baseline.BaselineTestSupport.isAllocated;
import static dev.floe.reclaim.baseline.BaselineTestSupport.owner;
import static dev.floe.reclaim.baseline.BaselineTestSupport.stamp;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.DeletedSliceException;
import dev.floe.reclaim.SafePointer;
import dev.floe.reclaim.Somar;
import dev.floe.testing.LockstepRace;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The SOMAR contract every baseline must keep, as Nova does: stale pointers fail after a
 * delete, exactly one of racing deletes wins, views are bounded (and read-only for readers),
 * forged pointers are refused, a slice is never reused under an ongoing access, and under
 * concurrent allocate / write / read / delete no successful read or write ever sees another
 * incarnation of a block.
 */
abstract class BaselineContract {
    protected FloeAllocator alloc;

    /** A fresh scheme over {@code alloc} with retire batches of {@code batch} deletes. */
    abstract Somar open(FloeAllocator alloc, int batch);

    /** Deleted slices whose blocks are not yet back in the allocator. */
    abstract long waiting(Somar somar);

    /** Whether the scheme gives deleted blocks back (grow-only does not). */
    abstract boolean reclaims();

    @BeforeEach
    void openAllocator() {
        alloc = BaselineTestSupport.openAllocator();
    }

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    /**
     * Whether a stress loop may go on allocating: always for a reclaiming scheme; for one that
     * never frees, while its live bytes stay under a quarter of the region (its small-object half
     * would otherwise run out in a long {@code -Pstress} run: a failure of the test's budget, not
     * of the scheme).
     */
    boolean roomLeft() {
        return reclaims() || alloc.stats().liveBytes() < BaselineTestSupport.REGION / 4;
    }

    private static Long stampWriter(MemorySegment s, Long ptr) {
        stamp(s, ptr);
        return ptr;
    }

    /** Allocates a slice of {@code length} bytes stamped with its own pointer. */
    static long stamped(Somar somar, long length) {
        long p = somar.allocate(length);
        somar.writePrivate(p, BaselineContract::stampWriter, p);
        return p;
    }

    @Test
    void writesAreVisibleToLaterReads() {
        Somar somar = open(alloc, 4);
        long p = stamped(somar, 32);
        assertEquals(p, somar.read(p, BaselineTestSupport::owner));
        somar.write(p, (s, v) -> { s.set(JAVA_LONG, 8, v); return null; }, 42L);
        assertEquals(42L, (long) somar.read(p, s -> s.get(JAVA_LONG, 8)));
        assertEquals(7L, somar.writeOr(p, (s, v) -> v, 7L, -1L));
    }

    @Test
    void everyCopyOfAPointerFailsAfterDelete() {
        Somar somar = open(alloc, 4);
        long p = stamped(somar, 32);
        long copy = p;
        assertTrue(somar.delete(p));
        assertFalse(somar.delete(copy), "a second delete through a copy");
        assertEquals(FAILED, somar.readOr(copy, BaselineTestSupport::owner, FAILED));
        assertEquals(FAILED, somar.writeOr(copy, (s, v) -> v, 1L, FAILED));
        assertThrows(DeletedSliceException.class, () -> somar.read(copy, BaselineTestSupport::owner));
        assertThrows(DeletedSliceException.class, () -> somar.write(copy, (s, v) -> v, 1L));
        assertThrows(DeletedSliceException.class, () -> somar.writePrivate(copy, (s, v) -> v, 1L));
        assertThrows(DeletedSliceException.class, () -> somar.deletePrivate(copy));
        long marked = SafePointer.markDeleted(p);
        assertEquals(FAILED, somar.readOr(marked, BaselineTestSupport::owner, FAILED));
        assertFalse(somar.delete(marked));
    }

    @Test
    void stalePointersFailAfterTheirBlocksAreReused() {
        Somar somar = open(alloc, 1);
        List<Long> stale = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long p = stamped(somar, 40);
            assertTrue(somar.delete(p));
            stale.add(p);
        }
        somar.reclaimNow();
        List<Long> fresh = new ArrayList<>();
        for (int i = 0; i < 200; i++) fresh.add(stamped(somar, 40));
        if (reclaims()) {
            long reused = fresh.stream().filter(f -> stale.stream()
                    .anyMatch(s -> SafePointer.headerOffset(s) == SafePointer.headerOffset(f))).count();
            assertTrue(reused > 0, "deleted blocks are reused");
        }
        for (long s : stale) {
            assertEquals(FAILED, somar.readOr(s, BaselineTestSupport::owner, FAILED));
            assertEquals(FAILED, somar.writeOr(s, (seg, v) -> { stamp(seg, v); return v; }, s, FAILED));
            assertFalse(somar.delete(s));
        }
        for (long f : fresh) assertEquals(f, somar.read(f, BaselineTestSupport::owner));
    }

    /**
     * Two instances on one allocator: a block one frees and the other reallocates gets a new
     * version (one clock per allocator), so the first's stale pointers neither equal the
     * second's pointers nor read its slices.
     */
    @Test
    void twoInstancesOnOneAllocatorNeverValidateEachOthersStalePointers() {
        Somar first = open(alloc, 1);
        Somar second = open(alloc, 1);
        List<Long> stale = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            long p = stamped(first, 24);
            assertTrue(first.delete(p));
            stale.add(p);
        }
        first.reclaimNow();
        for (int i = 0; i < 100; i++) {
            long q = stamped(second, 24);
            assertFalse(stale.contains(q), "the second instance issued a stale pointer's exact value");
        }
        for (long p : stale) assertEquals(FAILED, first.readOr(p, BaselineTestSupport::owner, FAILED));
    }

    @Test
    void deletePrivateFailsEveryLaterAccess() {
        Somar somar = open(alloc, 2);
        long p = stamped(somar, 16);
        somar.deletePrivate(p);
        assertEquals(FAILED, somar.readOr(p, BaselineTestSupport::owner, FAILED));
        assertFalse(somar.delete(p));
        somar.reclaimNow();
        assertEquals(reclaims() ? 0 : 1, waiting(somar));
    }

    /**
     * Racing deletes of the same slice: exactly one wins. Each round the coordinator allocates
     * 256 fresh slices and releases the deleters; they go through the slices in the same order
     * and meet at a spin barrier before each one, so that those on a CPU load its header within
     * nanoseconds of each other. (Without the barrier they tend to fall into turns, the loser of
     * one slice reaching the next while the winner is still retiring, and overlaps are left to
     * scheduling noise.) Checked per slice per round: exactly one {@code true}; no deleter throws
     * (two winners would retire a block twice); after the round the slice is deleted; at the end
     * nothing waits and every block is back. Rounds repeat for {@code floe.stress.seconds / 6}
     * (at least 500 ms and 4 rounds).
     */
    @Test
    void exactlyOneOfConcurrentDeletesWins() throws Exception {
        Somar somar = open(alloc, 16);
        int slices = 256;
        long[] ptrs = new long[slices];
        AtomicIntegerArray wins = new AtomicIntegerArray(slices);
        long deadline = System.nanoTime() + Math.max(500, STRESS_SECONDS * 1000 / 6) * 1_000_000L;
        long rounds;
        // 4 deleters, more than 2 cores: the ones that run race
        try (LockstepRace race = new LockstepRace("deleter", 4, slices, (t, i) -> {
            if (somar.delete(ptrs[i])) wins.incrementAndGet(i);
        })) {
            Queue<String> failures = race.failures();
            while (failures.isEmpty() && (race.rounds() < 4 || System.nanoTime() < deadline) && roomLeft()) {
                for (int i = 0; i < slices; i++) {
                    ptrs[i] = stamped(somar, 24);
                    wins.set(i, 0);
                }
                race.round();
                for (int i = 0; i < slices; i++) {
                    if (wins.get(i) != 1) {
                        failures.add("round " + race.rounds() + ", slice " + i + ": " + wins.get(i) + " deletes won");
                    }
                    if (somar.delete(ptrs[i])) failures.add("round " + race.rounds() + ", slice " + i + " was still live");
                }
            }
            assertTrue(failures.isEmpty(), () -> failures.size() + " failures, first: " + failures.peek());
            rounds = race.rounds();
        }
        somar.reclaimNow();
        assertEquals(reclaims() ? 0 : rounds * slices, waiting(somar));
        if (reclaims()) assertEquals(0, alloc.stats().liveBytes(), "every block back in the allocator");
    }

    @Test
    void viewsAreBoundedToTheSliceAndReadOnlyForReaders() {
        Somar somar = open(alloc, 4);
        long p = somar.allocate(20);
        assertEquals(20L, somar.read(p, MemorySegment::byteSize));
        assertTrue(somar.read(p, MemorySegment::isReadOnly), "reader views are read-only");
        assertThrows(IllegalArgumentException.class, // the JDK's "attempt to write a read-only segment"
                () -> somar.read(p, s -> { s.set(JAVA_BYTE, 0, (byte) 1); return null; }));
        assertEquals(20L, (long) somar.<Object, Long>write(p, (s, v) -> s.byteSize(), null));
        assertFalse(somar.<Object, Boolean>write(p, (s, v) -> s.isReadOnly(), null));
        assertThrows(IndexOutOfBoundsException.class,
                () -> somar.write(p, (s, v) -> { s.set(JAVA_BYTE, 20, (byte) 1); return null; }, null));
        assertThrows(IndexOutOfBoundsException.class,
                () -> somar.writePrivate(p, (s, v) -> { s.set(JAVA_BYTE, -1, (byte) 1); return null; }, null));
        long empty = somar.allocate(0);
        assertEquals(0L, somar.read(empty, MemorySegment::byteSize));
        assertThrows(IllegalArgumentException.class, () -> somar.allocate(-1));
        assertThrows(IllegalArgumentException.class, () -> somar.allocate(1L << 20));
    }

    @Test
    void forgedPointersAreRefusedWithoutTouchingForeignMemory() {
        Somar somar = open(alloc, 4);
        long p = stamped(somar, 64);
        SplittableRandom rnd = new SplittableRandom(7);
        List<Long> forged = new ArrayList<>(List.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE,
                p + 1, p - 1, p ^ (1L << 40), p & ((1L << 37) - 1)));
        for (int i = 0; i < 10_000; i++) forged.add(rnd.nextLong());
        for (long f : forged) {
            if (f == p) continue;
            Object r = somar.readOr(f, MemorySegment::byteSize, null);
            assertTrue(r == null || (Long) r <= 64, "a view past any slice through " + SafePointer.toString(f));
            somar.writeOr(f, (s, v) -> s.byteSize(), null, null); // must not throw or crash
        }
        assertEquals(p, somar.read(p, BaselineTestSupport::owner), "the real slice is untouched");
        assertThrows(DeletedSliceException.class, () -> somar.writePrivate(p + 1, (s, v) -> v, 1));
    }

    @Test
    void readerExceptionsOnLiveSlicesPropagate() {
        Somar somar = open(alloc, 4);
        long p = stamped(somar, 16);
        assertThrows(IllegalStateException.class, () -> somar.read(p, s -> { throw new IllegalStateException("boom"); }));
        assertThrows(IllegalStateException.class,
                () -> somar.write(p, (s, v) -> { throw new IllegalStateException("boom"); }, null));
        assertEquals(p, somar.read(p, BaselineTestSupport::owner), "the failed accesses released their protection");
        assertTrue(somar.delete(p));
        somar.reclaimNow();
        assertEquals(0, reclaims() ? waiting(somar) : 0);
    }

    /**
     * A slice deleted while a read or write is inside it is not reused until the access
     * returns, and the access completes on its own incarnation.
     */
    @ParameterizedTest(name = "writer = {0}")
    @CsvSource({"false", "true"})
    void aSliceIsNotReusedUnderAnOngoingAccess(boolean writer) throws Exception {
        Somar somar = open(alloc, 1);
        long x = stamped(somar, 48);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        long[] seen = new long[1];
        Thread t = Thread.ofPlatform().start(() -> {
            if (writer) {
                seen[0] = somar.write(x, (s, v) -> {
                    inside.countDown();
                    await(release);
                    stamp(s, v);
                    return owner(s);
                }, x);
            } else {
                seen[0] = somar.read(x, s -> {
                    inside.countDown();
                    await(release);
                    return owner(s);
                });
            }
        });
        await(inside);
        assertTrue(somar.delete(x));
        somar.reclaimNow();
        assertTrue(isAllocated(alloc, SafePointer.headerOffset(x)), "the accessed block is still allocated");
        for (int i = 0; i < 500; i++) {
            long f = stamped(somar, 48);
            assertNotEquals(SafePointer.headerOffset(x), SafePointer.headerOffset(f), "reused under an access");
        }
        release.countDown();
        t.join();
        assertEquals(x, seen[0], "the access saw its own incarnation throughout");
        somar.reclaimNow();
        if (reclaims()) assertFalse(isAllocated(alloc, SafePointer.headerOffset(x)), "freed once the access ended");
    }

    /**
     * Safety under concurrency: threads share a table of pointers and randomly read it, write
     * through it, replace entries (allocate, stamp privately, publish by CAS, delete the old
     * one) and remove entries, while also retrying pointers they deleted themselves. Checked:
     * a successful read or write only ever sees the content of the pointer it was called with;
     * the deleter that removed a pointer from the table always wins its delete; every pointer a
     * thread deleted fails afterwards in that thread; no operation throws; at the end, with
     * everything deleted, nothing waits and (for reclaiming schemes) every block is back in the
     * allocator. A scheme that never frees (grow-only) ends its run early once it has filled a
     * quarter of the region ({@link #roomLeft}), so that long stress runs do not exhaust it.
     */
    @ParameterizedTest(name = "{0} threads, virtual = {1}, batch {2}")
    @CsvSource({"4, false, 8", "16, true, 64"})
    void concurrentAccessNeverSeesAnotherIncarnation(int threads, boolean virtual, int batch) throws Exception {
        Somar somar = open(alloc, batch);
        int tableSize = 128;
        AtomicLongArray table = new AtomicLongArray(tableSize);
        for (int i = 0; i < tableSize; i++) table.set(i, stamped(somar, 16 + 8 * (i % 12)));
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder successfulReads = new LongAdder();
        LongAdder failedReads = new LongAdder();
        LongAdder replaced = new LongAdder();
        long deadline = System.nanoTime() + Math.max(1_000, STRESS_SECONDS * 1000 / 2) * 1_000_000L;
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = 1234 + t;
            Runnable worker = () -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                long[] mine = new long[64]; // pointers this thread deleted, most recent first
                int mineCount = 0;
                int ops = 0;
                while (violations.isEmpty() && ((++ops & 255) != 0 || (System.nanoTime() < deadline && roomLeft()))) {
                    int i = rnd.nextInt(tableSize);
                    int op = rnd.nextInt(100);
                    long p = table.get(i);
                    if (op < 45) {
                        if (p == 0) continue;
                        long o = somar.readOr(p, BaselineTestSupport::owner, FAILED);
                        if (o == FAILED) {
                            failedReads.increment();
                        } else if (o != p) {
                            violations.add("read through " + SafePointer.toString(p) + " saw " + o);
                        } else {
                            successfulReads.increment();
                        }
                    } else if (op < 60) {
                        if (p == 0) continue;
                        long o = somar.writeOr(p, (s, q) -> {
                            long before = owner(s);
                            if (before != q) return before;
                            stamp(s, q);
                            return q;
                        }, p, FAILED);
                        if (o != FAILED && o != p) {
                            violations.add("write through " + SafePointer.toString(p) + " found " + o);
                        }
                    } else if (op < 85) {
                        long fresh = stamped(somar, 16 + 8 * rnd.nextInt(12));
                        if (table.compareAndSet(i, p, fresh)) {
                            replaced.increment();
                            if (p != 0) {
                                if (!somar.delete(p)) violations.add("remover lost the delete of " + p);
                                mine[mineCount++ & 63] = p;
                            }
                        } else {
                            somar.deletePrivate(fresh);
                        }
                    } else if (op < 92) {
                        p = table.getAndSet(i, 0);
                        if (p != 0) {
                            if (!somar.delete(p)) violations.add("remover lost the delete of " + p);
                            mine[mineCount++ & 63] = p;
                        }
                    } else if (op < 99) {
                        if (mineCount == 0) continue;
                        long d = mine[rnd.nextInt(Math.min(mineCount, 64))];
                        if (somar.readOr(d, BaselineTestSupport::owner, FAILED) != FAILED
                                || somar.writeOr(d, (s, v) -> v, 1L, FAILED) != FAILED
                                || somar.delete(d)) {
                            violations.add("deleted pointer " + SafePointer.toString(d) + " still works");
                        }
                    } else {
                        somar.reclaimNow();
                    }
                }
            };
            Runnable guarded = () -> {
                try {
                    worker.run();
                } catch (Throwable e) { // an exception out of the scheme is a failure of its own
                    StringWriter trace = new StringWriter();
                    e.printStackTrace(new PrintWriter(trace));
                    violations.add("a worker threw " + trace);
                }
            };
            ts.add(virtual ? Thread.ofVirtual().start(guarded) : Thread.ofPlatform().start(guarded));
        }
        for (Thread t : ts) t.join();
        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: " + violations.peek());
        assertTrue(successfulReads.sum() > 1_000, "reads succeeded: " + successfulReads.sum());
        assertTrue(replaced.sum() > 1_000, "slices replaced: " + replaced.sum());

        for (int i = 0; i < tableSize; i++) {
            long p = table.getAndSet(i, 0);
            if (p != 0) assertTrue(somar.delete(p));
        }
        somar.reclaimNow();
        if (reclaims()) {
            assertEquals(0, waiting(somar), "nothing waits once no access is in flight");
            assertEquals(0, alloc.stats().liveBytes(), "every block is back in the allocator");
        }
    }
}
