package dev.floe.reclaim;

import static dev.floe.reclaim.NovaTestSupport.TORN;
import static dev.floe.reclaim.NovaTestSupport.describe;
import static dev.floe.reclaim.NovaTestSupport.owner;
import static dev.floe.reclaim.NovaTestSupport.stamp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.MemoryStats;
import dev.floe.memory.RegionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The main Nova stress test: <b>safety</b> (Nova paper, appendix A: once a slice is retired, no
 * operation writes to it or returns a value read from it) under allocate / publish / read / write
 * / delete / re-allocate churn, with a tiny release batch so that deleted blocks are reused at
 * once, and a trimmer that releases emptied superblocks to the OS (stale pointers then land on
 * zeros) while they are being accessed.
 *
 * <p>Every slice's bytes name the safe pointer they were written through ({@link
 * NovaTestSupport#stamp}): written by {@code writePrivate} before the pointer is published into a
 * shared {@link AtomicLongArray}, and rewritten by {@code write()}. Pointers stay in the array after
 * their slice was deleted (stale copies), so every operation also runs through stale pointers
 * whose blocks hold other incarnations. Violations checked:
 * <ul>
 *   <li><b>read</b>: a {@code readOr} that succeeds must return its own pointer's pattern. A
 *       success returning another pointer's pattern, or torn bytes, is a read that returned a value
 *       read from a retired (and reused) slice.</li>
 *   <li><b>write</b>: inside a successful {@code writeOr} the slice must hold its own pointer's
 *       pattern before the writer touches it (the slice cannot have been reused: the hazard slot
 *       holds it). A write that went to another incarnation shows up there, or later as foreign or
 *       torn content in that incarnation.</li>
 *   <li><b>no corruption</b>: before a slice is deleted by the thread that unpublished it, and for
 *       every live slice at the end, its content is exactly its pointer's pattern.</li>
 *   <li><b>no leak</b>: at the end everything is deleted, {@code reclaimNow()} and {@code trim()}
 *       leave zero live bytes and nothing waiting.</li>
 * </ul>
 * Runs {@code floe.stress.seconds} in total, split across both region modes and two batch sizes,
 * plus magic-number mode (Nova paper, appendix B) on an allocator that re-carves emptied
 * superblocks for other size classes, so that stale pointers also land where the block geometry
 * changed.
 */
class NovaSafetyStressTest {
    private static final long MILLIS = Math.max(400, NovaTestSupport.STRESS_SECONDS * 1000 / 5);
    private static final int WORKERS = 4;
    private static final int SLOTS = 256;
    /** Few sizes, so that blocks are reused across incarnations all the time. */
    private static final int[] LENGTHS = {8, 16, 40, 100, 200, 500};
    private static final long SB = 64 << 10;

    static Stream<Arguments> configs() {
        List<Arguments> args = new ArrayList<>();
        for (RegionMode mode : new RegionMode[] {RegionMode.MAPPED, RegionMode.ARENA_CHUNKS}) {
            args.add(Arguments.of(mode, 1, false));
            args.add(Arguments.of(mode, 8, false));
        }
        // magic-number mode on an allocator that re-carves emptied superblocks for other classes
        args.add(Arguments.of(RegionMode.MAPPED, 8, true));
        return args.stream();
    }

    private static final class Counters {
        final LongAdder allocs = new LongAdder();
        final LongAdder readsOk = new LongAdder();
        final LongAdder readsFailed = new LongAdder();
        final LongAdder writesOk = new LongAdder();
        final LongAdder writesFailed = new LongAdder();
        final LongAdder deletes = new LongAdder();
        final LongAdder staleDeletes = new LongAdder();
        final LongAdder privateDeletes = new LongAdder();
        final LongAdder reusedBlocks = new LongAdder();
    }

    @ParameterizedTest(name = "{0}, batch {1}, magic numbers + re-carving {2}")
    @MethodSource("configs")
    void noOperationReadsOrWritesARetiredSlice(RegionMode mode, int batch, boolean magic) throws InterruptedException {
        try (FloeAllocator alloc = NovaTestSupport.builder(mode).regionSize(64L << 20).superblockSize(SB)
                .recarveEmptySuperblocks(magic).build()) {
            Nova nova = new Nova(alloc, batch, magic);
            AtomicLongArray slots = new AtomicLongArray(SLOTS);
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            Counters c = new Counters();
            long deadline = System.nanoTime() + MILLIS * 1_000_000;

            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < WORKERS; t++) {
                long seed = 0x5AFE_0000L + t;
                threads.add(Thread.ofPlatform().daemon().name("nova-stress-" + t).unstarted(() -> {
                    try {
                        work(nova, slots, new SplittableRandom(seed), deadline, stop, violations, c);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, NovaTestSupport.explain(e, batch));
                        stop.set(true);
                    }
                }));
            }
            // releases emptied superblocks now and then: stale pointers then land on zeroed memory
            threads.add(Thread.ofPlatform().daemon().name("nova-stress-trim").unstarted(() -> {
                try {
                    while (!stop.get() && System.nanoTime() < deadline) {
                        alloc.trim();
                        Thread.sleep(3);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                }
            }));
            threads.forEach(Thread::start);
            for (Thread th : threads) {
                th.join(MILLIS + 60_000);
                if (th.isAlive()) {
                    stop.set(true);
                    fail(th.getName() + " did not finish 60 s after the deadline (livelock or hang?)");
                }
            }
            if (failure.get() != null) throw new AssertionError("a stress thread failed", failure.get());
            if (!violations.isEmpty()) {
                fail(violations.size() + " safety violation(s), first ones:\n  "
                        + String.join("\n  ", violations.stream().limit(10).toList()));
            }

            // quiescent: every live slice holds exactly its own pattern; stale pointers fail
            int live = 0;
            for (int i = 0; i < SLOTS; i++) {
                long p = slots.getAndSet(i, 0);
                if (p == 0) continue;
                if (nova.length(p) >= 0) {
                    live++;
                    long o = nova.read(p, NovaTestSupport::owner);
                    assertEquals(p, o, () -> "live slice " + describe(p) + " holds " + describe(o) + " at the end");
                    assertTrue(nova.delete(p));
                } else {
                    assertEquals(Boolean.FALSE, nova.readOr(p, s -> true, false), "a stale pointer read");
                }
            }
            nova.reclaimNow();
            assertEquals(0, nova.waitingSlices(), "nothing waits after deleting everything and reclaimNow()");
            alloc.trim();
            MemoryStats s = alloc.stats();
            assertEquals(0, s.liveBytes(), () -> "every slice was reclaimed: " + s);
            System.out.printf("nova stress %s batch %d%s, %d ms: %d allocations (%d reused a block), reads %d ok / "
                            + "%d failed, writes %d ok / %d failed, deletes %d (+%d through stale copies, %d private), "
                            + "%d live at the end, %d superblock releases, era %d%n",
                    mode, batch, magic ? " magic+recarve" : "", MILLIS, c.allocs.sum(), c.reusedBlocks.sum(), c.readsOk.sum(), c.readsFailed.sum(),
                    c.writesOk.sum(), c.writesFailed.sum(), c.deletes.sum(), c.staleDeletes.sum(),
                    c.privateDeletes.sum(), live, s.superblockReleases(), nova.era());
            assertTrue(c.readsOk.sum() > 0 && c.readsFailed.sum() > 0, "reads both succeeded and failed");
            assertTrue(c.writesOk.sum() > 0 && c.writesFailed.sum() > 0, "writes both succeeded and failed");
            assertTrue(c.reusedBlocks.sum() > 0, "blocks were reused while stale pointers to them existed");
        }
    }

    private static void work(Nova nova, AtomicLongArray slots, SplittableRandom rnd, long deadline,
                             AtomicBoolean stop, ConcurrentLinkedQueue<String> violations, Counters c) {
        // header offset -> last pointer this thread saw there, to count reuse (cheap, approximate)
        java.util.HashMap<Long, Long> seen = new java.util.HashMap<>();
        int ops = 0;
        while (!stop.get() && ((++ops & 63) != 0 || System.nanoTime() < deadline)) {
            int i = rnd.nextInt(SLOTS);
            int op = rnd.nextInt(100);
            if (op < 25) {
                // allocate, write privately, publish (swap out and delete the previous occupant)
                long p = nova.allocate(LENGTHS[rnd.nextInt(LENGTHS.length)]);
                c.allocs.increment();
                Long before = seen.put(SafePointer.headerOffset(p), p);
                if (before != null && before != p) c.reusedBlocks.increment();
                nova.writePrivate(p, (s, x) -> {
                    stamp(s, p);
                    return null;
                }, null);
                if (rnd.nextBoolean()) {
                    long old = slots.getAndSet(i, p);
                    if (old != 0) unpublishedDelete(nova, old, violations, c);
                } else if (!slots.compareAndSet(i, 0, p)) {
                    nova.deletePrivate(p); // publication failed: the slice is still private
                    c.privateDeletes.increment();
                }
            } else if (op < 65) {
                long p = slots.get(i);
                if (p == 0) continue;
                Long o = nova.readOr(p, NovaTestSupport::owner, null);
                if (o == null) {
                    c.readsFailed.increment();
                } else if (o != p) {
                    violations.add("read of " + describe(p) + " succeeded with "
                            + (o == TORN ? "torn bytes" : "the content of " + describe(o)));
                } else {
                    c.readsOk.increment();
                }
            } else if (op < 90) {
                long p = slots.get(i);
                if (p == 0) continue;
                Boolean r = nova.writeOr(p, (s, x) -> {
                    long o = owner(s);
                    if (o != p) {
                        violations.add("write of " + describe(p) + " got a slice holding "
                                + (o == TORN ? "torn bytes" : "the content of " + describe(o)));
                    }
                    stamp(s, p);
                    return Boolean.TRUE;
                }, null, Boolean.FALSE);
                if (r) c.writesOk.increment();
                else c.writesFailed.increment();
            } else if (op < 95) {
                // delete through a copy, leaving the (now stale) pointer published
                long p = slots.get(i);
                if (p != 0 && nova.delete(p)) c.staleDeletes.increment();
            } else {
                long p = slots.getAndSet(i, 0);
                if (p != 0) unpublishedDelete(nova, p, violations, c);
            }
        }
    }

    /** The slice was just unpublished by this thread: check it holds only its own pattern, delete it. */
    private static void unpublishedDelete(Nova nova, long p, ConcurrentLinkedQueue<String> violations, Counters c) {
        Long o = nova.readOr(p, NovaTestSupport::owner, null);
        if (o != null && o != p) {
            violations.add("before its delete, " + describe(p) + " holds "
                    + (o == TORN ? "torn bytes" : "the content of " + describe(o)));
        }
        if (nova.delete(p)) c.deletes.increment(); // false: someone deleted it through a copy
    }
}
