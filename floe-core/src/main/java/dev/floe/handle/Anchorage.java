package dev.floe.handle;

import dev.floe.memory.BackgroundPriority;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * ANCHORAGE's defragmenter, made concurrent: a control loop on a daemon thread that empties sparse
 * chunks of an {@link AnchorageHeap} by moving their objects (through
 * {@link HandleSpace#relocate}, which never stops other threads) into fuller chunks, so that the
 * emptied chunks go back to the OS.
 *
 * <h2>Control loop (the paper's section 4.3)</h2>
 * A two-state machine over F = committed / live bytes of the handle area (O(1),
 * {@link AnchorageHeap#fragmentation}):
 * <ul>
 *   <li><b>waiting</b>: wake every {@code wakeInterval} (500 ms); if F &gt; F_ub, start
 *       defragmenting.</li>
 *   <li><b>defragmenting</b>: run a pass that moves at most alpha × live bytes; it took T_pass
 *       of CPU time (wall-clock time where the JVM does not measure thread CPU time); if F &lt;
 *       F_lb or the pass moved nothing (no opportunity: pinned, or F is only internal to size
 *       classes), or the pass failed, go back to waiting; else sleep T_pass / O_ub, so passes
 *       use at most O_ub of one core. In {@code moveEverything} mode only a failed pass goes
 *       back to waiting.</li>
 * </ul>
 * ALASKA's passes run inside a stop-the-world barrier, so their length is a pause; here a pass
 * runs beside the application and only the handful of objects marked in one batch
 * ({@value #BATCH}) are in flight at a time, and readers and writers never wait for them.
 *
 * <h2>Scheduling</h2>
 * By default the loop thread moves itself to Linux's {@code SCHED_IDLE} class
 * ({@link DefragConfig#lowPriority}, {@link dev.floe.memory.BackgroundPriority}): it never
 * preempts an application thread and runs on cores the application leaves free. At normal
 * priority, a pass that wakes while every core is busy (the application, the JIT compiler) took an
 * application thread's core for a whole 4 ms scheduler tick. The price: on a machine whose cores
 * are busy all the time, passes wait (and memory is given back later); {@code withLowPriority(false)}
 * keeps the normal class. No lock is shared with the application (see {@link AnchorageHeap}), so an
 * idle-class thread cannot hold one up; only {@link #runPass} callers wait for a pass in progress.
 *
 * <h2>A pass</h2>
 * For each size class, {@link AnchorageHeap#evacuationCandidates} marks the sparsest chunks the
 * class does not need (so no allocation lands in them), their objects are moved in batches
 * (allocation puts the copies in the lowest-addressed chunks with room), pinned objects stay,
 * and the chunks are handed back ({@link AnchorageHeap#endEvacuation}). Each batch frees its own
 * old copies when it ends; finally the retired handles are drained, so chunks emptied by frees are
 * released ({@code madvise}) before the pass ends.
 * Passes are serialized by a lock ({@link #runPass} may be called from any thread, e.g. tests).
 */
public final class Anchorage implements AutoCloseable {
    static final int BATCH = 64;

    private final HandleSpace space;
    private final AnchorageHeap heap;
    private final DefragConfig config;
    private final ReentrantLock passLock = new ReentrantLock();
    private final Thread thread;
    private volatile boolean stopped;
    private volatile boolean defragmenting;
    /** Whether the loop thread runs at the lowest CPU priority ({@link DefragConfig#lowPriority}). */
    private volatile boolean lowPriority;

    // statistics, written under passLock, read racily (volatile)
    private volatile long passes, objectsMoved, bytesMoved, pinnedSkips, cancelledMoves;
    private volatile long totalPassNanos, maxPassNanos;
    /** Passes of the background loop that ended in an exception (only the loop thread writes it). */
    private volatile long failures;
    /** CPU time of the background loop's passes, what O_ub bounds (only the loop thread writes it). */
    private volatile long loopPassCpuNanos;
    private volatile double lastBefore = 1.0, lastAfter = 1.0;

    private Anchorage(HandleSpace space, DefragConfig config, boolean background) {
        java.util.Objects.requireNonNull(space, "space");
        space.ensureOpen();
        if (!(space.service() instanceof AnchorageHeap h)) {
            throw new IllegalArgumentException("Anchorage defragments a space whose service is an AnchorageHeap");
        }
        this.space = space;
        this.heap = h;
        this.config = java.util.Objects.requireNonNull(config, "config");
        if (background) {
            thread = Thread.ofPlatform().daemon().name("floe-anchorage").unstarted(this::loop);
            thread.start();
        } else {
            thread = null;
        }
    }

    /**
     * Starts the defragmenting service on a daemon thread; {@link #close()} stops it.
     *
     * @throws IllegalArgumentException if the space's service is not an {@link AnchorageHeap}
     * @throws IllegalStateException    if the space is closed
     */
    public static Anchorage start(HandleSpace space, DefragConfig config) {
        return new Anchorage(space, config, true);
    }

    /**
     * A defragmenter without a thread: passes run only when {@link #runPass} is called.
     *
     * @throws IllegalArgumentException if the space's service is not an {@link AnchorageHeap}
     * @throws IllegalStateException    if the space is closed
     */
    public static Anchorage manual(HandleSpace space, DefragConfig config) {
        return new Anchorage(space, config, false);
    }

    /** The control-loop parameters this defragmenter was built with. */
    public DefragConfig config() {
        return config;
    }

    private void loop() {
        try {
            runLoop();
        } finally {
            defragmenting = false; // stats() after close(), which joins this thread, says so
        }
    }

    private void runLoop() {
        if (config.lowPriority()) lowPriority = BackgroundPriority.lowerCurrentThread();
        long wake = saturatedNanos(config.wakeInterval());
        while (!stopped) {
            if (!defragmenting) {
                sleep(wake);
                if (stopped || spaceGone()) break; // a closed space has nothing left to move
                defragmenting = config.moveEverything() || heap.fragmentation() > config.fragmentationHigh();
                continue;
            }
            // T_pass is the pass's CPU time: the overhead O_ub bounds is CPU taken from the
            // application, and a pass in the idle scheduling class may wait for a free core for
            // far longer than it computes (ALASKA's passes stop the world, where the two agree)
            long cpu0 = threadCpuTime(), wall0 = System.nanoTime();
            long moved;
            boolean failed = false;
            try {
                moved = runPass();
            } catch (RuntimeException e) { // out of budget for copies, or the space was closed under us
                // A closed space (or allocator) fails every later pass too: end the loop rather
                // than log each one (in moveEverything mode it never went back to waiting and
                // logged a WARNING with a stack trace every few milliseconds, for ever).
                if (stopped || spaceGone()) break;
                failures++;
                System.getLogger("dev.floe.handle").log(System.Logger.Level.WARNING,
                        "defragmentation pass failed; waiting before the next one", e);
                moved = 0;
                failed = true;
            }
            long cpu1 = threadCpuTime(), wall1 = System.nanoTime();
            long took = cpu0 >= 0 && cpu1 >= 0 ? cpu1 - cpu0 : wall1 - wall0;
            loopPassCpuNanos += took;
            // a failed pass goes back to waiting in every mode (in moveEverything mode too: until
            // 2026-11-24 a pass that failed for want of budget was retried at once, for ever)
            if (failed || (!config.moveEverything()
                    && (moved == 0 || heap.fragmentation() < config.fragmentationLow()))) {
                defragmenting = false;
            } else {
                sleep((long) (took / config.overheadBound()));
            }
        }
    }

    /** Whether the space, or the allocator under it, is closed: no pass can succeed any more. */
    private boolean spaceGone() {
        return space.isClosed() || heap.allocator().isClosed();
    }

    /**
     * {@code d} in nanoseconds, or {@link Long#MAX_VALUE} past about 292 years (where
     * {@link java.time.Duration#toNanos} throws: the loop thread died of it at its start).
     */
    static long saturatedNanos(java.time.Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException beyondLongNanos) {
            return Long.MAX_VALUE;
        }
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * The loop thread's CPU time, or -1 where the JVM cannot measure it now: unsupported, or
     * switched off ({@code ThreadMXBean.setThreadCpuTimeEnabled(false)}, where the JVM answers -1).
     * A pass measured without it counts wall-clock time instead. Until 2026-11-24 a JVM with thread
     * CPU time switched off measured every pass as 0 ns, so the loop never slept between passes.
     */
    private static long threadCpuTime() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    /** Parks for {@code nanos} (despite spurious wake-ups) or until {@link #close()}. */
    private void sleep(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left;
        while (!stopped && (left = deadline - System.nanoTime()) > 0) LockSupport.parkNanos(left);
    }

    /**
     * Runs one pass now (waiting for a pass in progress to finish) and returns the bytes it moved.
     * Moves at most alpha × live bytes, or every object in {@code moveEverything} mode.
     *
     * @throws IllegalStateException if this defragmenter or its space is closed
     */
    public long runPass() {
        passLock.lock();
        try {
            if (stopped) throw new IllegalStateException("the defragmenter is closed");
            space.ensureOpen();
            return pass();
        } finally {
            passLock.unlock();
        }
    }

    private long pass() {
        DefragPassEvent event = new DefragPassEvent();
        event.begin();
        long t0 = System.nanoTime();
        double before = heap.fragmentation();
        boolean all = config.moveEverything();
        long budget = all ? Long.MAX_VALUE : Math.max(1, (long) (config.aggression() * heap.liveBytes()));
        long moved = 0, objects = 0, pinned = 0, cancelled = 0;
        long[] offs = new long[0];
        int[] ids = new int[0];
        if (!space.beginMoves()) throw new IllegalStateException("handle space is closed");
        try {
            // the space's close waits for this pass to end (beginMoves): it stops after the
            // batch in progress once it sees the space closed
            for (int c = 0; c < AnchorageHeap.classCount() && !space.isClosed(); c++) {
                List<AreaChunk> chunks = heap.evacuationCandidates(c, all);
                try {
                    for (AreaChunk ch : chunks) {
                        if (moved >= budget || space.isClosed()) break;
                        if (offs.length < ch.blockCount) {
                            offs = new long[ch.blockCount];
                            ids = new int[ch.blockCount];
                        }
                        int n = heap.usedBlocks(ch, offs, ids);
                        for (int at = 0; at < n && moved < budget && !space.isClosed(); at += BATCH) {
                            int k = Math.min(BATCH, n - at);
                            HandleSpace.Moves m = space.relocate(
                                    java.util.Arrays.copyOfRange(ids, at, at + k),
                                    java.util.Arrays.copyOfRange(offs, at, at + k), k);
                            moved += m.bytes();
                            objects += m.moved();
                            pinned += m.pinned();
                            cancelled += m.cancelled();
                        }
                    }
                } finally { // every picked chunk takes allocations again, even if a move failed
                    for (AreaChunk ch : chunks) heap.endEvacuation(ch);
                }
            }
            if (!space.isClosed()) space.drainRetired();
        } finally { // a pass that failed (out of budget for a copy) still counts what its finished batches did
            space.endMoves();
            long took = System.nanoTime() - t0;
            double after = heap.fragmentation();
            passes++;
            objectsMoved += objects;
            bytesMoved += moved;
            pinnedSkips += pinned;
            cancelledMoves += cancelled;
            totalPassNanos += took;
            if (took > maxPassNanos) maxPassNanos = took;
            lastBefore = before;
            lastAfter = after;
            event.end();
            if (event.shouldCommit()) {
                event.bytesMoved = moved;
                event.objectsMoved = objects;
                event.fragmentationBefore = before;
                event.fragmentationAfter = after;
                event.commit();
            }
        }
        return moved;
    }

    /** What the service has done so far. */
    public DefragStats stats() {
        return new DefragStats(passes, objectsMoved, bytesMoved, pinnedSkips, cancelledMoves,
                totalPassNanos, maxPassNanos, loopPassCpuNanos, lastBefore, lastAfter, defragmenting);
    }

    /** Passes of the background loop that failed with an exception (logged at WARNING). */
    public long failedPasses() {
        return failures;
    }

    /**
     * Whether the background loop's thread runs at the lowest CPU scheduling priority: asked for
     * by {@link DefragConfig#lowPriority} and granted by the platform (Linux with native access).
     */
    public boolean runsAtLowPriority() {
        return lowPriority;
    }

    /** Whether the background loop runs (started and not closed). */
    public boolean isRunning() {
        return thread != null && thread.isAlive() && !stopped;
    }

    /**
     * Stops the loop and waits (up to 10 s) for a pass in progress to end, the loop's or a
     * {@link #runPass} caller's, also on an interrupted thread (whose interrupt status is kept);
     * afterwards {@link #runPass} throws {@link IllegalStateException}
     * and {@link #stats()} keeps the final counts. Closing twice is harmless. Close it before the
     * {@link HandleSpace}: if the space closes first, its close waits for the pass in progress,
     * which stops after its current batch, and the background loop ends by itself at its next
     * wake-up; if the allocator closes first, the loop ends with the pass the close made fail (not
     * counted in {@link #failedPasses()}). Either way {@link #isRunning()} turns false.
     */
    @Override
    public void close() {
        stopped = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        boolean interrupted = false; // an interrupt does not cut the wait short (it returned at once): kept for after
        if (thread != null) {
            LockSupport.unpark(thread);
            long left;
            while (thread.isAlive() && (left = deadline - System.nanoTime()) > 0) {
                try {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        while (true) {
            try {
                if (passLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    passLock.unlock(); // no pass in progress, and none can start: runPass sees stopped
                }
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
