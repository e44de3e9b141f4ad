package dev.floe.handle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Readers, writers, pinners and a free/allocate churn against a mover in the test mode that moves
 * every object every pass. Invariants checked:
 * <ul>
 *   <li>a read never returns a mix of two locations' bytes or another object's content: every
 *       word of object k carries k's tag and its word index, and written objects show at most
 *       two adjacent generations (a concurrent write in progress);</li>
 *   <li>no write is lost: a writer, under its pin, always finds exactly its previous write, and
 *       at the end every written object holds its last generation;</li>
 *   <li>pinned objects never move: while a pin is open, reads through the table find the object
 *       at the pinned address, and read-only objects keep their bytes.</li>
 * </ul>
 */
class MoverStressTest {
    private static final int OBJECTS = 512;
    private static final int WORDS = 12; // 96-byte objects
    private static final long RUN_NANOS = 3_000_000_000L;

    /** Word i of object k at generation g: tag k+1, word index, generation. */
    static long word(int k, int i, long gen) {
        return ((long) (k + 1) << 40) | ((long) i << 32) | gen;
    }

    @Test
    void moveEverythingEveryPassKeepsReadsWritesAndPinsCorrect() throws Exception {
        try (FloeAllocator alloc = HandleTestSupport.allocator()) {
            HandleSpace space = new HandleSpace(alloc);
            long[] hs = new long[OBJECTS];
            AtomicLongArray gens = new AtomicLongArray(OBJECTS);
            for (int k = 0; k < OBJECTS; k++) {
                hs[k] = space.allocate(WORDS * 8);
                fill(space, hs[k], k, 0);
            }
            Anchorage mover = Anchorage.manual(space, DefragConfig.DEFAULTS.withMoveEverything(true));
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong reads = new AtomicLong(), writes = new AtomicLong(), pins = new AtomicLong();
            long end = System.nanoTime() + RUN_NANOS;
            List<Thread> threads = new ArrayList<>();
            threads.add(Thread.ofPlatform().unstarted(() -> {
                while (System.nanoTime() < end) mover.runPass();
            }));
            for (int r = 0; r < 2; r++) {
                int seed = r;
                threads.add(Thread.ofPlatform().unstarted(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    while (System.nanoTime() < end) {
                        int k = rnd.nextInt(OBJECTS);
                        long lo = gens.get(k); // every write finished before the read began is seen
                        long[] range = new long[2];
                        String bad = space.read(hs[k], s -> check(s, k, isWritten(k), range));
                        long hi = gens.get(k) + 1; // at most the write in progress when the read ended
                        if (bad == null && (range[0] < lo || range[1] > hi)) {
                            bad = "generations " + range[0] + ".." + range[1] + " outside " + lo + ".." + hi;
                        }
                        if (bad != null) throw new AssertionError("read of object " + k + ": " + bad);
                        reads.incrementAndGet();
                    }
                }));
            }
            // writers own the even objects: writer w writes objects with k % 4 == 2 * w
            for (int w = 0; w < 2; w++) {
                int owner = w;
                threads.add(Thread.ofVirtual().unstarted(() -> {
                    SplittableRandom rnd = new SplittableRandom(10 + owner);
                    while (System.nanoTime() < end) {
                        int k = rnd.nextInt(OBJECTS / 4) * 4 + 2 * owner;
                        long g = gens.get(k);
                        String bad = space.write(hs[k], s -> {
                            for (int i = 0; i < WORDS; i++) {
                                long got = s.get(JAVA_LONG, i * 8L);
                                if (got != word(k, i, g)) return "lost write: word " + i + " = " + Long.toHexString(got);
                            }
                            for (int i = 0; i < WORDS; i++) s.set(JAVA_LONG, i * 8L, word(k, i, g + 1));
                            return null;
                        });
                        if (bad != null) throw new AssertionError("write of object " + k + ": " + bad);
                        gens.set(k, g + 1);
                        writes.incrementAndGet();
                    }
                }));
            }
            threads.add(Thread.ofPlatform().unstarted(() -> {
                SplittableRandom rnd = new SplittableRandom(99);
                while (System.nanoTime() < end) {
                    int k = rnd.nextInt(OBJECTS);
                    try (Pin p = space.pin(hs[k])) {
                        MemorySegment seg = p.segment();
                        String before = isWritten(k) ? null : check(seg, k, false, new long[2]);
                        for (int spin = 0; spin < 3; spin++) {
                            long at = space.read(hs[k], MemorySegment::address);
                            if (at != seg.address()) throw new AssertionError("pinned object " + k + " moved");
                            Thread.onSpinWait();
                        }
                        String after = isWritten(k) ? null : check(seg, k, false, new long[2]);
                        if (before != null || after != null) throw new AssertionError("pinned object " + k + ": " + before + after);
                    }
                    pins.incrementAndGet();
                }
            }));
            threads.add(Thread.ofPlatform().unstarted(() -> { // churn: other objects come and go
                SplittableRandom rnd = new SplittableRandom(7);
                long[] mine = new long[64];
                while (System.nanoTime() < end) {
                    int i = rnd.nextInt(mine.length);
                    if (mine[i] != 0) space.free(mine[i]);
                    mine[i] = space.allocate(WORDS * 8);
                    fill(space, mine[i], 100_000 + i, 0);
                }
            }));
            for (Thread t : threads) {
                t.setUncaughtExceptionHandler((th, e) -> failures.add(e));
                t.start();
            }
            for (Thread t : threads) t.join();
            if (!failures.isEmpty()) throw new AssertionError(failures.peek());
            for (int k = 0; k < OBJECTS; k++) {
                int kk = k;
                long g = gens.get(k);
                for (int i = 0; i < WORDS; i++) {
                    int ii = i;
                    assertEquals(word(k, i, g), (long) space.read(hs[k], s -> s.get(JAVA_LONG, ii * 8L)),
                            "object " + kk + " word " + i);
                }
            }
            DefragStats st = mover.stats();
            assertTrue(st.objectsMoved() > OBJECTS, "the mover moved objects: " + st);
            assertTrue(reads.get() > 0 && writes.get() > 0 && pins.get() > 0);
            mover.close();
            space.close();
        }
    }

    private static boolean isWritten(int k) {
        return k % 2 == 0;
    }

    private static void fill(HandleSpace space, long h, int k, long gen) {
        space.write(h, s -> {
            for (int i = 0; i < WORDS; i++) s.set(JAVA_LONG, i * 8L, word(k, i, gen));
            return null;
        });
    }

    /**
     * Null if the view holds object k's words (unchanged if read-only); the smallest and largest
     * generation seen go to {@code range}.
     */
    static String check(MemorySegment s, int k, boolean written, long[] range) {
        long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        for (int i = 0; i < WORDS; i++) {
            long w = s.get(JAVA_LONG, i * 8L);
            long gen = w & 0xFFFF_FFFFL;
            if (w >>> 32 != (((long) (k + 1) << 8) | i)) return "word " + i + " = " + Long.toHexString(w);
            min = Math.min(min, gen);
            max = Math.max(max, gen);
        }
        if (!written && max != 0) return "read-only object changed: gen " + max;
        range[0] = min;
        range[1] = max;
        return null;
    }
}
