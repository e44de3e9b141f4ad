package dev.floe.memory;

import static dev.floe.memory.TestSupport.assertEverythingReturned;
import static dev.floe.memory.TestSupport.assertQuiescentStatsConsistent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many threads allocate and free concurrently, some frees crossing threads, with 64 KiB
 * superblocks so that superblocks are released and reused all the time, while another thread
 * takes stats snapshots and trims the caches.
 *
 * <p>Invariants checked:
 * <ul>
 *   <li>No block is handed out twice while live, and live blocks never overlap: each block is
 *       filled at allocation with a pattern naming its owner (thread and sequence number), and the
 *       pattern is verified just before the block is freed (a mismatch means another allocation
 *       overlapped it, or it was reused or released while live). At the end the remaining live
 *       blocks are checked pairwise disjoint.</li>
 *   <li>Frees from any thread are accepted exactly once (cross-thread frees through queues).</li>
 *   <li>Nothing leaks: after everything is freed and trimmed, live and committed bytes are 0
 *       (every superblock released, every large run freed).</li>
 *   <li>Lock-freedom in practice: every worker finishes within its time plus a generous margin
 *       (a livelock or a lost wake-up would hang here).</li>
 * </ul>
 * Runs {@code floe.stress.seconds} (3 by default, 180 with {@code -Pstress}) per region mode,
 * split across the thread counts.
 */
class ConcurrentAllocatorStressTest {
    private static final long SECONDS = Long.getLong("floe.stress.seconds", 3);
    private static final long SB = 64 << 10;
    private static final int MAX_LIVE_PER_THREAD = 1500;

    static Stream<Arguments> configs() {
        List<Arguments> args = new ArrayList<>();
        for (RegionMode mode : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            args.add(Arguments.of(mode, 2, 0, false));
            args.add(Arguments.of(mode, 4, 0, false));
            // more threads than stripes: calls often find every stripe busy and go to the heap directly
            args.add(Arguments.of(mode, 8, 2, false));
            // emptied superblocks re-carved across classes while other threads flush and fill
            args.add(Arguments.of(mode, 4, 0, true));
        }
        return args.stream();
    }

    /** One allocated block and the pattern written into it. */
    record Block(long off, long usable, int owner, long seq) {
        long tag() {
            return ((long) (owner + 1) << 48) | seq;
        }
    }

    @ParameterizedTest(name = "{0}, {1} threads, stripes {2} (0 = default), re-carving {3}")
    @MethodSource("configs")
    void liveBlocksAreNeverOverwrittenAndEverythingIsReturned(RegionMode mode, int threads, int stripes,
                                                              boolean recarve) throws InterruptedException {
        long millis = Math.max(500, SECONDS * 1000 / 3);
        FloeAllocator.Builder b = TestSupport.builder(mode).superblockSize(SB).recarveEmptySuperblocks(recarve);
        if (stripes > 0) b.cacheStripes(stripes);
        try (FloeAllocator a = b.build()) {
            List<ConcurrentLinkedQueue<Block>> inbox = new ArrayList<>();
            for (int i = 0; i < threads; i++) inbox.add(new ConcurrentLinkedQueue<>());
            List<List<Block>> remaining = new ArrayList<>();
            for (int i = 0; i < threads; i++) remaining.add(new ArrayList<>());
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder allocs = new LongAdder();
            LongAdder frees = new LongAdder();
            LongAdder crossFrees = new LongAdder();
            LongAdder largeAllocs = new LongAdder();
            long deadline = System.nanoTime() + millis * 1_000_000;

            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                Thread w = new Thread(() -> {
                    try {
                        work(a, me, threads, inbox, remaining.get(me), deadline, stop,
                                allocs, frees, crossFrees, largeAllocs);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        stop.set(true);
                    }
                }, "floe-stress-" + t);
                w.setDaemon(true); // a hung worker must not keep the test JVM alive
                workers.add(w);
            }
            Thread monitor = new Thread(() -> {
                try {
                    int i = 0;
                    while (!stop.get() && System.nanoTime() < deadline) {
                        MemoryStats s = a.stats(); // racy snapshot: must simply not fail
                        assertTrue(s.committedBytes() >= 0 && s.largeRuns() >= 0, s::toString);
                        if (++i % 4 == 0) a.trim();
                        Thread.sleep(2);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }, "floe-stress-monitor");
            monitor.setDaemon(true);
            workers.forEach(Thread::start);
            monitor.start();
            for (Thread w : workers) {
                w.join(millis + 60_000);
                if (w.isAlive()) {
                    stop.set(true);
                    fail(w.getName() + " did not finish 60 s after its deadline (livelock or hang?):\n"
                            + stackOf(w));
                }
            }
            monitor.join(60_000);
            if (failure.get() != null) throw new AssertionError("a stress thread failed", failure.get());

            // whatever is still live: owned by workers or in flight in an inbox
            List<Block> live = new ArrayList<>();
            remaining.forEach(live::addAll);
            for (ConcurrentLinkedQueue<Block> q : inbox) live.addAll(q);
            live.sort(Comparator.comparingLong(Block::off));
            for (int i = 0; i < live.size(); i++) {
                Block x = live.get(i);
                verify(a, x);
                assertEquals(x.usable(), a.usableSize(x.off()), "usable size of a live block changed");
                if (i + 1 < live.size()) {
                    Block y = live.get(i + 1);
                    assertTrue(x.off() + x.usable() <= y.off(), "live blocks overlap: " + x + " and " + y);
                }
            }
            MemoryStats s = a.stats();
            assertQuiescentStatsConsistent(s, SB);
            assertEquals(live.stream().mapToLong(Block::usable).sum(), s.liveBytes(),
                    () -> "live bytes vs the blocks still held: " + s);
            long releasesDuringRun = s.superblockReleases();
            for (Block x : live) a.free(x.off());
            a.trim();
            assertEverythingReturned(a, SB);
            System.out.printf("stress %s %d threads (stripes %s), %d ms: %d allocations (%d large), %d frees "
                            + "(%d cross-thread), %d superblock releases during the run, %d blocks live at the end%n",
                    mode, threads, stripes == 0 ? "default" : stripes, millis, allocs.sum(), largeAllocs.sum(),
                    frees.sum(), crossFrees.sum(), releasesDuringRun, live.size());
            assertTrue(allocs.sum() > 1000, "the workers made progress");
            assertTrue(crossFrees.sum() > 0, "some frees crossed threads");
        }
    }

    static Stream<Arguments> churnConfigs() {
        List<Arguments> args = new ArrayList<>();
        for (RegionMode mode : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            for (int size : new int[] {SizeClasses.MAX_SMALL, 5000}) {
                args.add(Arguments.of(mode, size, 1));
                args.add(Arguments.of(mode, size, 0));
            }
        }
        return args.stream();
    }

    /**
     * Invariant (SuperblockHeap's class comment): an emptied superblock is offered for reuse only
     * after its {@code madvise} finished, else the release would zero a new owner's data. One size
     * class with few blocks per 64 KiB superblock, so that superblocks empty, are released and are
     * reused by another thread all the time; every block is verified just before it is freed.
     */
    @ParameterizedTest(name = "{0}, {1}-byte blocks, stripes {2} (0 = default)")
    @MethodSource("churnConfigs")
    void releasedSuperblocksAreReusedOnlyAfterTheirReleaseFinished(RegionMode mode, int size, int stripes)
            throws InterruptedException {
        long millis = Math.max(500, SECONDS * 1000 / 8);
        int threads = 3;
        FloeAllocator.Builder b = TestSupport.builder(mode).superblockSize(SB);
        if (stripes > 0) b.cacheStripes(stripes);
        try (FloeAllocator a = b.build()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            long deadline = System.nanoTime() + millis * 1_000_000;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                Thread w = new Thread(() -> {
                    try {
                        Random rnd = new Random(me);
                        long seq = 0;
                        List<Block> mine = new ArrayList<>();
                        while (!stop.get() && System.nanoTime() < deadline) {
                            int k = 1 + rnd.nextInt(12);
                            for (int i = 0; i < k; i++) {
                                long off = a.allocate(size);
                                Block x = new Block(off, a.usableSize(off), me, ++seq);
                                fill(a, x);
                                mine.add(x);
                            }
                            if (rnd.nextInt(8) == 0) Thread.yield();
                            for (Block x : mine) {
                                verify(a, x);
                                a.free(x.off());
                            }
                            mine.clear();
                            if (me == 0 && rnd.nextInt(64) == 0) a.trim();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        stop.set(true);
                    }
                }, "floe-stress-churn-" + t);
                w.setDaemon(true);
                workers.add(w);
            }
            workers.forEach(Thread::start);
            for (Thread w : workers) {
                w.join(millis + 60_000);
                if (w.isAlive()) {
                    stop.set(true);
                    fail(w.getName() + " did not finish 60 s after its deadline (livelock or hang?):\n" + stackOf(w));
                }
            }
            if (failure.get() != null) throw new AssertionError("a churn thread failed", failure.get());
            a.trim();
            assertTrue(a.stats().superblockReleases() > 0, "superblocks were released");
            assertEverythingReturned(a, SB);
        }
    }

    private static void work(FloeAllocator a, int me, int threads, List<ConcurrentLinkedQueue<Block>> inbox,
                             List<Block> live, long deadline, AtomicBoolean stop, LongAdder allocs,
                             LongAdder frees, LongAdder crossFrees, LongAdder largeAllocs) {
        Random rnd = new Random(0xF10E_0000L + me);
        long seq = 0;
        long ops = 0;
        while (!stop.get() && ((++ops & 63) != 0 || System.nanoTime() < deadline)) {
            Block in;
            while ((in = inbox.get(me).poll()) != null) {
                verify(a, in);
                a.free(in.off());
                crossFrees.increment();
                frees.increment();
            }
            int r = rnd.nextInt(100);
            if (live.size() < 64 || (r < 50 && live.size() < MAX_LIVE_PER_THREAD)) {
                long size = randomSize(rnd);
                long off = a.allocate(size);
                long usable = a.usableSize(off);
                if (off <= 0 || (off & 7) != 0 || usable < size) {
                    throw new AssertionError("bad block " + off + " (usable " + usable + ") for " + size + " bytes");
                }
                Block x = new Block(off, usable, me, ++seq);
                fill(a, x);
                live.add(x);
                allocs.increment();
                if (size > SizeClasses.MAX_SMALL) largeAllocs.increment();
            } else if (r < 56 && threads > 1) {
                Block x = removeRandom(live, rnd);
                int to = (me + 1 + rnd.nextInt(threads - 1)) % threads;
                inbox.get(to).add(x); // the receiver verifies and frees it
            } else {
                Block x = removeRandom(live, rnd);
                verify(a, x);
                a.free(x.off());
                frees.increment();
            }
        }
    }

    private static Block removeRandom(List<Block> live, Random rnd) {
        int i = rnd.nextInt(live.size());
        Block x = live.get(i);
        live.set(i, live.getLast());
        live.removeLast();
        return x;
    }

    /** 1 B .. 20 KiB, mostly log-uniform over the small classes, a few percent large up to 100 KiB. */
    private static long randomSize(Random rnd) {
        int r = rnd.nextInt(100);
        if (r < 3) return SizeClasses.MAX_SMALL + 1 + rnd.nextInt((100 << 10) - SizeClasses.MAX_SMALL);
        if (r < 10) return 1 + rnd.nextInt(20 << 10);
        return 1 + rnd.nextInt(1 << rnd.nextInt(15));
    }

    /** The words that carry the pattern: all of them up to 1 KiB, else first, middle and last. */
    private static long[] words(Block x) {
        if (x.usable() <= 1024) {
            long[] w = new long[(int) (x.usable() / 8)];
            for (int i = 0; i < w.length; i++) w[i] = 8L * i;
            return w;
        }
        return new long[] {0, (x.usable() / 2) & -8, x.usable() - 8};
    }

    private static void fill(FloeAllocator a, Block x) {
        long tag = x.tag();
        for (long w : words(x)) a.region().setLongPlain(x.off() + w, tag);
    }

    private static void verify(FloeAllocator a, Block x) {
        long tag = x.tag();
        for (long w : words(x)) {
            long v = a.region().getLongPlain(x.off() + w);
            if (v != tag) {
                throw new AssertionError("live block " + x + " was overwritten at +" + w + ": found "
                        + (v == 0 ? "0 (zeroed: released or reused while live?)"
                        : "the pattern of thread " + ((v >>> 48) - 1) + " seq " + (v & 0xFFFF_FFFF_FFFFL)
                        + " (another live block overlaps it)") + ", expected thread " + x.owner()
                        + " seq " + x.seq());
            }
        }
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) sb.append("\tat ").append(e).append('\n');
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().startsWith("floe-stress") && e.getKey() != t) {
                sb.append(e.getKey().getName()).append(":\n");
                for (StackTraceElement f : e.getValue()) sb.append("\tat ").append(f).append('\n');
            }
        }
        return sb.toString();
    }
}
