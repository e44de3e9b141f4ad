package dev.floe.bench.lockfree;

import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Mode;
import dev.floe.lockfree.MichaelHashTable;
import dev.floe.lockfree.Reclamation;
import dev.floe.memory.FloeAllocator;
import dev.floe.memory.ReleaseMethod;

/**
 * The {@code release} workload, the paper's main point: fill a Michael hash table with
 * {@code keys} keys, delete every one, let the scheme reclaim ({@link Reclamation#reclaimIdle}) and
 * the allocator flush its caches ({@link FloeAllocator#trim}), and read VmRSS before the fill, at
 * the peak and after. The table's bucket array exists before {@code rss_before}; only nodes come
 * and go. One thread; the worker's heap is fixed and pre-touched so heap growth does not move RSS.
 */
final class ReleaseRun {
    /** Keys filled and deleted, by mode. */
    static long keys(Mode mode) {
        return mode == Mode.FULL ? 1_000_000 : 500_000;
    }

    /** What one fill-and-delete measured. */
    record Outcome(long rssBefore, long rssPeak, long rssAfter, long fillNanos, long deleteNanos,
                   long releases, Reclamation.Stats stats) {}

    static Outcome run(String impl, long keys, ReleaseMethod method) {
        Structures.closeCurrent(); // a timed workload's structure must not blur the RSS figures
        try (FloeAllocator alloc = FloeAllocator.builder().name("lockfree-release").jmx(false)
                .releaseMethod(method).build()) {
            Reclamation rec = Structures.scheme(impl, alloc);
            MichaelHashTable table = new MichaelHashTable(rec, keys);
            long rssBefore = MemorySnapshot.currentRss();
            long t0 = System.nanoTime();
            for (long k = 0; k < keys; k++) table.insert(k * 7919, k);
            long t1 = System.nanoTime();
            long rssPeak = MemorySnapshot.currentRss();
            long t2 = System.nanoTime();
            for (long k = 0; k < keys; k++) table.remove(k * 7919);
            rec.reclaimIdle();
            alloc.trim();
            long t3 = System.nanoTime();
            long rssAfter = MemorySnapshot.currentRss();
            long releases = alloc.stats().superblockReleases();
            Reclamation.Stats stats = rec.stats();
            table.close();
            return new Outcome(rssBefore, rssPeak, rssAfter, t1 - t0, t3 - t2, releases, stats);
        }
    }
}
