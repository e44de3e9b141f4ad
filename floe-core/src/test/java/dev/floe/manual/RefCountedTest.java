package dev.floe.manual;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reference-counted sharing of a manual object: the last release abandons it, never earlier. */
class RefCountedTest {
    private FloeAllocator alloc;
    private ManualHeap heap;

    @BeforeEach
    void setUp() {
        alloc = FloeAllocator.builder().regionSize(1L << 30).build();
        heap = new ManualHeap(alloc);
    }

    @AfterEach
    void tearDown() {
        alloc.close();
    }

    @Test
    void theObjectLivesUntilTheLastReferenceIsReleased() {
        Owner o = heap.create(64);
        try (Shield s = o.defend()) {
            s.setLong(0, 99);
        }
        RefCounted a = RefCounted.adopt(o);
        assertTrue(o.isEmpty(), "adopt takes the object, as a move does");
        RefCounted b = a.retain();
        RefCounted c = b.retain();
        assertEquals(3, a.count());

        a.release();
        b.release();
        heap.reclaim();
        assertEquals(0, heap.freedCount(), "one reference is left: nothing may be freed");
        try (Shield s = c.defend()) {
            assertEquals(99, s.getLong(0));
        }

        c.release();
        assertEquals(0, c.count());
        heap.reclaim();
        assertEquals(1, heap.freedCount(), "the last release abandons the object");
    }

    @Test
    void aShieldOpenedBeforeTheLastReleaseKeepsTheObject() {
        RefCounted r = RefCounted.adopt(heap.create(32));
        try (Shield s = r.defend()) {
            s.setLong(8, 5);
            r.release();
            heap.reclaim();
            assertEquals(0, heap.freedCount(), "a shield still protects the object");
            assertEquals(5, s.getLong(8));
        }
        heap.reclaim();
        assertEquals(1, heap.freedCount());
    }

    @Test
    void misuseIsRefused() {
        assertThrows(NullPointerException.class, () -> RefCounted.adopt(null));
        Owner empty = heap.newOwner();
        assertThrows(IllegalStateException.class, () -> RefCounted.adopt(empty));

        RefCounted a = RefCounted.adopt(heap.create(16));
        RefCounted b = a.retain();
        a.release();
        assertTrue(a.isReleased());
        assertThrows(IllegalStateException.class, a::release, "double release");
        assertThrows(IllegalStateException.class, a::retain, "retain through a released reference");
        assertThrows(IllegalStateException.class, a::defend, "defend through a released reference");
        assertEquals(1, b.count(), "the failed calls changed nothing");
        assertFalse(b.isReleased());
        b.release();
        assertThrows(IllegalStateException.class, b::retain);
    }

    /**
     * Threads pass references around a shared pool, retaining and releasing at random, and read
     * the object's stamp through shields. No read may see another stamp (the object was freed and
     * its block reused), and after every reference is released the object is freed exactly once.
     */
    @Test
    void concurrentRetainAndReleaseNeverFreeALiveObject() throws Exception {
        int rounds = 200;
        AtomicLong bad = new AtomicLong();
        for (int round = 0; round < rounds; round++) {
            long stamp = 1_000 + round;
            Owner o = heap.create(64);
            try (Shield s = o.defend()) {
                s.setLong(0, stamp);
            }
            ConcurrentLinkedQueue<RefCounted> pool = new ConcurrentLinkedQueue<>();
            RefCounted first = RefCounted.adopt(o);
            for (int i = 0; i < 7; i++) pool.add(first.retain());
            pool.add(first);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    for (int k = 0; k < 50; k++) {
                        RefCounted r = pool.poll();
                        if (r == null) return;
                        try (Shield s = r.defend()) {
                            if (s.getLong(0) != stamp) bad.incrementAndGet();
                        }
                        if (rnd.nextBoolean()) pool.add(r.retain());
                        if (rnd.nextBoolean()) pool.add(r); else r.release();
                    }
                }));
            }
            // churn other objects meanwhile, so a freed block would be reused with other stamps
            for (int i = 0; i < 20; i++) {
                Owner other = heap.create(64);
                try (Shield s = other.defend()) {
                    s.setLong(0, -1);
                }
                other.abandon();
            }
            for (Thread t : threads) t.join();
            RefCounted r;
            while ((r = pool.poll()) != null) r.release();
            assertEquals(0, first.count(), "every reference released");
        }
        heap.reclaim();
        assertEquals(0, bad.get(), "a shield read another object's bytes");
        assertEquals(rounds * 21L, heap.freedCount(), "every shared object freed exactly once, with the churn");
    }
}
