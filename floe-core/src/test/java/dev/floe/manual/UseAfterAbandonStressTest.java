package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariant: an object is never reclaimed while a shield that defended it is open. Threads
 * defend shared owners and read the object's stamp (unique per object created with
 * {@code create}; the fill byte for {@code createInto}) while others abandon and replace the
 * objects; the allocator reuses freed blocks at once (same size class), so a premature free shows
 * up as a reader seeing another object's stamp or zeros.
 *
 * <p>A reader must see exactly the object it defended, not just a consistent one: a block freed
 * and reused before the reader's first load holds another object's complete stamp. So every
 * owner's replacements (under a per-owner test lock: only the test's bookkeeping needs it) are
 * recorded in a seqlock: the version is odd while the owner changes, and {@code expected} holds
 * the stamp of the object the owner holds (0 when empty). A reader that sees the same even
 * version before and after its defend knows which object the defend took; every read through
 * that shield must then return its stamp, and the defend must succeed exactly when the owner
 * held an object. (Defends that overlap a replacement only check that the reads agree.)
 *
 * <p>One thread stalls now and then while holding a shield, with a low ejection threshold, so
 * ejection and rejoin run during the stress too. Runs {@code floe.stress.seconds / 4} (at least
 * 700 ms) per thread kind.
 */
class UseAfterAbandonStressTest {
    private static final int CELLS = 32;
    private static final int SIZE = 48;
    private static final long MILLIS = Math.max(700, Long.getLong("floe.stress.seconds", 3) * 1000 / 4);

    @Test
    void noShieldEverSeesAnotherObject() throws Exception {
        for (boolean virtual : new boolean[] {false, true}) run(virtual);
    }

    private void run(boolean virtual) throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).build()) {
            ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(8, 32));
            AtomicLong stamps = new AtomicLong();
            Owner[] cells = new Owner[CELLS];
            AtomicLongArray version = new AtomicLongArray(CELLS); // seqlock per cell: odd while it changes
            AtomicLongArray expected = new AtomicLongArray(CELLS); // the stamp of the cell's object, or 0
            for (int i = 0; i < CELLS; i++) {
                long stamp = stamps.incrementAndGet();
                cells[i] = create(heap, stamp);
                expected.set(i, stamp);
            }
            AtomicReference<String> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            AtomicLong identified = new AtomicLong();
            long end = System.nanoTime() + MILLIS * 1_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final int id = t;
                Runnable body = () -> {
                    SplittableRandom rnd = new SplittableRandom(id * 31L + (virtual ? 7 : 0));
                    try (Shield s = heap.newShield()) {
                        while (System.nanoTime() < end && failure.get() == null) {
                            int i = rnd.nextInt(CELLS);
                            Owner cell = cells[i];
                            int op = rnd.nextInt(100);
                            if (op < 70) {
                                long v = version.get(i);
                                long exp = expected.get(i);
                                boolean defended = s.tryDefend(cell);
                                boolean known = (v & 1) == 0 && version.get(i) == v; // no change around the defend
                                if (known) identified.incrementAndGet();
                                if (known && defended != (exp != 0)) {
                                    failure.compareAndSet(null, "defend of cell " + i + " holding " + exp + " returned " + defended);
                                }
                                if (!defended) continue;
                                long a = s.getLong(0);
                                if (id == 0 && rnd.nextInt(200) == 0) LockSupport.parkNanos(3_000_000); // stall, shielded
                                for (int k = 0; k < 20; k++) Thread.onSpinWait();
                                long b = s.getLong(8);
                                long c = s.getLong(SIZE - 8);
                                long d = s.getLong(0);
                                if (a == 0 || a != b || a != c || a != d || (known && a != exp)) {
                                    failure.compareAndSet(null, "cell " + i + (known ? " defended holding " + exp : "")
                                            + ", read " + a + "/" + b + "/" + c + "/" + d);
                                }
                                reads.incrementAndGet();
                            } else {
                                synchronized (cell) { // writers of one cell in turn, for the seqlock
                                    version.incrementAndGet(i); // odd
                                    if (op < 80) {
                                        long stamp = stamps.incrementAndGet();
                                        Owner fresh = create(heap, stamp);
                                        cell.move(fresh); // abandons the previous object if there was one
                                        expected.set(i, stamp);
                                    } else if (op < 90) {
                                        // straight into the shared owner, as an embedded owner is filled:
                                        // every byte is the (non-zero) fill, so the four reads agree
                                        byte fill = (byte) (1 + stamps.incrementAndGet() % 255);
                                        heap.createInto(cell, SIZE, fill);
                                        expected.set(i, filled(fill));
                                    } else if (!cell.isEmpty()) {
                                        cell.abandon();
                                        expected.set(i, 0);
                                    }
                                    version.incrementAndGet(i); // even
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e.toString());
                    }
                };
                threads.add(virtual ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body));
            }
            for (Thread t : threads) t.join();
            assertNull(failure.get(), failure.get());
            assertTrue(reads.get() > 1_000, "reads: " + reads.get());
            assertTrue(identified.get() > reads.get() / 2, "defends with a known object: " + identified.get());
            assertTrue(heap.ejections() > 0, "the stalls caused ejections");
            for (Owner c : cells) if (!c.isEmpty()) c.abandon();
            assertEquals(0, heap.reclaim(), "every abandoned object is reclaimed once all shields closed");
            assertEquals(stamps.get(), heap.freedCount(), "every object created was freed exactly once");
        }
    }

    /** The long every 8 bytes of an object filled with {@code fill} read as. */
    private static long filled(byte fill) {
        return (fill & 0xFFL) * 0x0101_0101_0101_0101L;
    }

    private static Owner create(ManualHeap heap, long stamp) {
        Owner o = heap.create(SIZE);
        try (Shield s = o.defend()) {
            s.setLong(0, stamp);
            s.setLong(8, stamp);
            s.setLong(SIZE - 8, stamp);
        }
        return o;
    }
}
