package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariant: an object is never reclaimed while a shield that defended it is open. Threads
 * defend shared owners and read a stamp (written three times into the object at creation, unique
 * per object) while others abandon and replace the objects; the allocator reuses freed blocks at
 * once (same size class), so a premature free shows up as a reader seeing another object's stamp
 * or zeros. One thread stalls now and then while holding a shield, with a low ejection
 * threshold, so ejection and rejoin run during the stress too.
 */
class UseAfterAbandonStressTest {
    private static final int CELLS = 32;
    private static final int SIZE = 48;

    @Test
    void noShieldEverSeesAnotherObject() throws Exception {
        for (boolean virtual : new boolean[] {false, true}) run(virtual);
    }

    private void run(boolean virtual) throws Exception {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).build()) {
            ManualHeap heap = new ManualHeap(alloc, new ManualHeap.Config(8, 32));
            AtomicLong stamps = new AtomicLong();
            Owner[] cells = new Owner[CELLS];
            for (int i = 0; i < CELLS; i++) cells[i] = create(heap, stamps.incrementAndGet());
            AtomicReference<String> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong();
            long end = System.nanoTime() + 700_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final int id = t;
                Runnable body = () -> {
                    SplittableRandom rnd = new SplittableRandom(id * 31L + (virtual ? 7 : 0));
                    try (Shield s = heap.newShield()) {
                        while (System.nanoTime() < end && failure.get() == null) {
                            Owner cell = cells[rnd.nextInt(CELLS)];
                            int op = rnd.nextInt(100);
                            if (op < 70) {
                                if (!s.tryDefend(cell)) continue;
                                long a = s.getLong(0);
                                if (id == 0 && rnd.nextInt(200) == 0) LockSupport.parkNanos(3_000_000); // stall, shielded
                                for (int k = 0; k < 20; k++) Thread.onSpinWait();
                                long b = s.getLong(8);
                                long c = s.getLong(SIZE - 8);
                                long d = s.getLong(0);
                                if (a == 0 || a != b || a != c || a != d) {
                                    failure.compareAndSet(null, "read " + a + "/" + b + "/" + c + "/" + d);
                                }
                                reads.incrementAndGet();
                            } else if (op < 80) {
                                Owner fresh = create(heap, stamps.incrementAndGet());
                                cell.move(fresh); // abandons the previous object if there was one
                            } else if (op < 90) {
                                // straight into the shared owner, as an embedded owner is filled:
                                // every byte is the (non-zero) fill, so the four reads agree
                                heap.createInto(cell, SIZE, (byte) (1 + stamps.incrementAndGet() % 255));
                            } else {
                                try {
                                    cell.abandon();
                                } catch (IllegalStateException empty) {
                                    // another thread emptied it first
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
            assertTrue(heap.ejections() > 0, "the stalls caused ejections");
            for (Owner c : cells) if (!c.isEmpty()) c.abandon();
            assertEquals(0, heap.reclaim(), "every abandoned object is reclaimed once all shields closed");
            assertEquals(stamps.get(), heap.freedCount(), "every object created was freed exactly once");
        }
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
