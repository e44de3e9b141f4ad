package dev.floe.bench.map;

import dev.floe.bench.harness.GcTotals;
import dev.floe.bench.harness.MemorySnapshot;
import dev.floe.bench.harness.Metric;
import dev.floe.bench.harness.Sample;
import dev.floe.memory.FloeOutOfMemoryException;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code ingest} workload: in a fresh worker JVM, one thread puts new keys (putIfAbsent, the
 * paper's ingestion) into an empty map until the memory runs out — the Java heap
 * ({@link OutOfMemoryError}), Floe's off-heap budget ({@link FloeOutOfMemoryException}) or
 * MapDB's direct memory — or the time limit passes. Keys are distinct and in random order (key
 * id {@code i * 0x9E3779B97F4A7C15}, a bijection of the counter), values the thread's template.
 *
 * <p>Metrics: {@code ops_per_s} is the ingestion rate, {@code ingested_bytes} the raw key and
 * value bytes that fitted (compared across implementations: the same RAM budget, how much data
 * it holds). {@code extra}: {@code ingested_entries}, {@code ingest_seconds}, which limit
 * stopped it ({@code heap_oom}, {@code offheap_full}, {@code time_limit}: 1 for the one that did),
 * the heap after the last collection, and the map's own figures.
 */
final class Ingest {

    /** Metric compared across implementations: raw bytes ingested before the memory ran out. */
    static final Metric INGESTED_BYTES = new Metric("ingested_bytes", true, 0);

    private static final long SPREAD = 0x9E3779B97F4A7C15L;
    /**
     * Heap set aside before the fill and dropped when it stops, so that reporting after a heap
     * {@link OutOfMemoryError} has room; 1 MiB in 16 KiB pieces (not humongous for G1), the same
     * for every implementation.
     */
    private static final int BALLAST_PIECES = 64;
    private static final int BALLAST_PIECE_BYTES = 16 << 10;

    private Ingest() {}

    /** Fills a new map of {@code impl} until a limit; returns what fitted. */
    static Sample run(MapImpl impl, MapSizing z) {
        return run(impl, z, z.ingestSeconds(), Long.MAX_VALUE);
    }

    /** As {@link #run(MapImpl, MapSizing)}, also stopping after {@code maxEntries} (tests). */
    static Sample run(MapImpl impl, MapSizing z, double seconds, long maxEntries) {
        Fill f = new Fill();
        f.ballast = new byte[BALLAST_PIECES][BALLAST_PIECE_BYTES];
        MapUnderTest map = impl.open(z);
        Probe p = new Probe(z.keyBytes(), z.valueBytes());
        long start = System.nanoTime();
        try {
            fill(map, p, start + (long) (seconds * 1e9), maxEntries, f);
        } catch (OutOfMemoryError e) {
            // escaped the fill loop's own handler (e.g. while deoptimizing it): the same outcome
            f.ballast = null;
            f.stoppedBy = "heap_oom";
        } catch (RuntimeException e) {
            f.ballast = null;
            if (!isOutOfMemory(e)) {
                map.close();
                throw e;
            }
            f.stoppedBy = "offheap_full";
        }
        long end = System.nanoTime();
        f.ballast = null;
        try {
            double secs = (end - start) / 1e9;
            long n = f.entries;
            MemorySnapshot memory = MemorySnapshot.capture(map.offheapCommittedBytes(), map.offheapLiveBytes());
            Map<String, Double> extra = new LinkedHashMap<>();
            extra.put("ingested_entries", (double) n);
            extra.put("ingested_bytes", (double) n * z.rawEntryBytes());
            extra.put("ingest_seconds", secs);
            for (String reason : new String[] {"heap_oom", "offheap_full", "time_limit"}) {
                extra.put(reason, reason.equals(f.stoppedBy) ? 1.0 : 0.0);
            }
            extra.put("heap_after_gc_bytes", (double) GcTotals.heapAfterLastGc());
            extra.putAll(map.extra());
            Map<String, Double> metrics = new LinkedHashMap<>();
            metrics.put(Metric.OPS_PER_S.name(), secs > 0 ? n / secs : 0);
            metrics.put(INGESTED_BYTES.name(), (double) n * z.rawEntryBytes());
            return new Sample(metrics, memory, extra);
        } finally {
            try {
                map.close();
            } catch (RuntimeException e) {
                System.err.println("map ingest: closing " + impl.label() + " after the fill failed: " + e);
            }
        }
    }

    /** The state of one fill, outside the hot loop's frame so that it survives any exception. */
    private static final class Fill {
        long entries;
        String stoppedBy = "time_limit";
        /** Heap set aside until the fill stops. */
        byte[][] ballast;
    }

    /**
     * The hot loop: putIfAbsent of new keys until a memory limit (its handlers drop the ballast
     * first, before anything else can allocate), the deadline or {@code maxEntries}.
     */
    private static void fill(MapUnderTest map, Probe p, long deadline, long maxEntries, Fill f) {
        try {
            for (long n = 0; ; ) {
                if ((n & 255) == 0 && System.nanoTime() - deadline > 0) return;
                if (n >= maxEntries) return;
                if (!map.putIfAbsent(p.key(n * SPREAD))) throw new IllegalStateException("ingest key " + n + " was present");
                f.entries = ++n;
            }
        } catch (OutOfMemoryError e) {
            f.ballast = null;
            f.stoppedBy = "heap_oom";
        } catch (FloeOutOfMemoryException e) {
            f.ballast = null;
            f.stoppedBy = "offheap_full";
        }
    }

    /**
     * A memory limit reported as another exception: MapDB wraps a full direct-memory cap in its
     * own exception (whose cause is the JVM's OutOfMemoryError).
     */
    private static boolean isOutOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError || t instanceof FloeOutOfMemoryException) return true;
            if (t.getClass().getName().equals("org.mapdb.DBException$OutOfMemory")) return true;
        }
        return false;
    }
}
