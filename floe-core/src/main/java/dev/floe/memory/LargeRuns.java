package dev.floe.memory;

import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Allocations above the largest size class: runs of whole pages from the large area
 * {@code [base, limit)} of the region.
 *
 * <p>Free runs are kept twice, by offset (to coalesce with neighbours) and by (length, offset)
 * (best fit, lowest address first); a request takes the best-fitting free run and splits off the
 * rest, or else grows the area's frontier by an extent ({@link Region#extentGranularity}: a page
 * in mapped mode, a chunk in arena mode, where the tail of the extent becomes a free run). A freed
 * run is released with {@code madvise} at once, then coalesced with free neighbours that are
 * contiguous in memory ({@link Region#contiguous}, always true when mapped). So free runs hold
 * address space, never physical memory.
 *
 * <p>Concurrency: the free-run structures are guarded by one {@link ReentrantLock} (safe for
 * virtual threads, held only for tree operations, never across the system call). LRMalloc gives
 * large requests to the kernel's {@code mmap}, which serialises on the process's mmap lock;
 * this is the same trade: large requests are rare and expensive anyway. Live runs sit in a
 * concurrent map so that lookups ({@link #length}) take no lock.
 */
final class LargeRuns {
    private record Run(long offset, long length) {}

    private static final Comparator<Run> BY_SIZE =
            Comparator.comparingLong(Run::length).thenComparingLong(Run::offset);

    private final Region region;
    private final Budget budget;
    private final long limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final TreeMap<Long, Run> freeByOffset = new TreeMap<>();
    private final TreeSet<Run> freeBySize = new TreeSet<>(BY_SIZE);
    private final Map<Long, Long> live = new ConcurrentHashMap<>();
    private long frontier; // guarded by lock
    /** Bytes in free runs (guarded by lock): for the exhaustion message, {@link #inPieces}. */
    private long freeBytes;

    LargeRuns(Region region, Budget budget, long base, long limit) {
        this.region = region;
        this.budget = budget;
        this.frontier = base;
        this.limit = limit;
    }

    static long pageRound(long size) {
        return (size + Libc.PAGE_SIZE - 1) & -Libc.PAGE_SIZE;
    }

    long allocate(long requested) {
        long length = pageRound(requested);
        budget.charge(length, requested);
        long off;
        lock.lock();
        try {
            off = takeFree(length);
            if (off < 0) off = grow(length, requested);
            live.put(off, length);
        } catch (RuntimeException e) {
            budget.refund(length);
            throw e;
        } finally {
            lock.unlock();
        }
        if (JfrEvents.recorderInitialized()) recordAllocation(off, requested, length);
        return off;
    }

    private long takeFree(long length) {
        Run fit = freeBySize.ceiling(new Run(0, length));
        if (fit == null) return -1;
        removeFree(fit);
        if (fit.length > length) addFree(new Run(fit.offset + length, fit.length - length));
        return fit.offset;
    }

    /**
     * Serves {@code length} bytes from fresh address space at the frontier. If the highest free
     * run ends at the frontier and the region grows contiguously (mapped mode), that run is
     * extended instead, so a freed run at the top never strands address space.
     */
    private long grow(long length, long requested) {
        long start = frontier;
        Map.Entry<Long, Run> top = freeByOffset.lastEntry();
        Run tail = top != null && region.growsContiguously()
                && top.getValue().offset + top.getValue().length == frontier ? top.getValue() : null;
        if (tail != null) start = tail.offset;
        long g = region.extentGranularity();
        long extent = (length - (frontier - start) + g - 1) / g * g;
        if (frontier > limit - extent) {
            throw budget.exhausted("large runs", inPieces(length), requested, length);
        }
        region.commit(frontier, extent);
        if (tail != null) removeFree(tail);
        frontier += extent;
        if (frontier > start + length) addFree(new Run(start + length, frontier - start - length));
        return start;
    }

    /**
     * Why the area refuses {@code length} bytes although its free runs add up to as much (empty
     * when they do not): the free bytes are in pieces. Live runs can separate them in any mode; in
     * a region that does not grow contiguously (arena chunks) runs of separately committed
     * extents never merge either, so the area can refuse with nothing live. Under the lock.
     */
    private String inPieces(long length) {
        if (freeBytes < length) return "";
        return " (" + freeBytes + " bytes of it are free, in pieces, the largest " + freeBySize.last().length
                + " bytes" + (region.growsContiguously() ? "" : "; in the " + region.mode()
                + " mode pieces of separately committed extents never merge") + ": a larger regionSize makes room)";
    }

    /** Frees the run at {@code off}; false if no live run starts there. */
    boolean free(long off) {
        Long length = live.remove(off);
        if (length == null) return false;
        region.release(off, length); // before the run can be handed out again
        budget.refund(length);
        lock.lock();
        try {
            Run run = new Run(off, length);
            Map.Entry<Long, Run> prev = freeByOffset.lowerEntry(off);
            if (prev != null && prev.getValue().offset + prev.getValue().length == off
                    && region.contiguous(prev.getValue().offset, off + length)) {
                removeFree(prev.getValue());
                run = new Run(prev.getValue().offset, prev.getValue().length + length);
            }
            Run next = freeByOffset.get(off + length);
            if (next != null && region.contiguous(run.offset, next.offset + next.length)) {
                removeFree(next);
                run = new Run(run.offset, run.length + next.length);
            }
            addFree(run);
        } finally {
            lock.unlock();
        }
        if (JfrEvents.recorderInitialized()) recordFree(off, length);
        return true;
    }

    /** Length of the live run at {@code off}, or -1. */
    long length(long off) {
        Long l = live.get(off);
        return l == null ? -1 : l;
    }

    int liveRuns() {
        return live.size();
    }

    long liveBytes() {
        long s = 0;
        for (long l : live.values()) s += l;
        return s;
    }

    /** Free runs (for tests: coalescing). */
    int freeRuns() {
        lock.lock();
        try {
            return freeByOffset.size();
        } finally {
            lock.unlock();
        }
    }

    long frontier() {
        lock.lock();
        try {
            return frontier;
        } finally {
            lock.unlock();
        }
    }

    private void addFree(Run r) {
        freeByOffset.put(r.offset, r);
        freeBySize.add(r);
        freeBytes += r.length;
    }

    private void removeFree(Run r) {
        freeByOffset.remove(r.offset);
        freeBySize.remove(r);
        freeBytes -= r.length;
    }

    /** JFR {@code floe.LargeAllocation} for an allocation (only once the recorder is initialized: {@link JfrEvents}). */
    private static void recordAllocation(long off, long requested, long length) {
        LargeAllocationEvent ev = new LargeAllocationEvent();
        if (ev.shouldCommit()) {
            ev.offset = off;
            ev.requested = requested;
            ev.bytes = length;
            ev.commit();
        }
    }

    /** JFR {@code floe.LargeAllocation} for a free. */
    private static void recordFree(long off, long length) {
        LargeAllocationEvent ev = new LargeAllocationEvent();
        if (ev.shouldCommit()) {
            ev.offset = off;
            ev.bytes = length;
            ev.freed = true;
            ev.commit();
        }
    }
}
