package dev.floe.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Large runs under random allocate/free sequences, checked against a model that knows only the
 * live runs and the extents the frontier grew by.
 *
 * <p>Model: the area {@code [base, frontier)} is cut into extents (one per growth of the frontier;
 * in mapped mode all of them are contiguous, so they form one extent). The free runs must be
 * exactly the maximal gaps between live runs inside each extent: that is full coalescing (mapped)
 * or coalescing only within contiguous memory (arena chunks).
 */
class LargeRunsPropertyTest {
    private static final long REGION_SIZE = 1L << 30;
    private static final long BASE = 4L << 20;          // chunk aligned, as the allocator's small limit is
    private static final long LIMIT = REGION_SIZE;
    private static final long CHUNK = ChunkedRegion.chunkSizeFor(REGION_SIZE, 256 << 10);

    sealed interface Op permits Alloc, Free {}

    record Alloc(int size) implements Op {}

    /** Frees the live run whose rank (by offset) is {@code pick % liveCount}. */
    record Free(int pick) implements Op {}

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> sizes = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.integers().between(1, 64 << 10)),
                Tuple.of(3, Arbitraries.integers().between(64 << 10, 1 << 20)),
                Tuple.of(1, Arbitraries.integers().between(1 << 20, 9 << 20))); // spans several chunks
        Arbitrary<Op> alloc = sizes.map(Alloc::new);
        Arbitrary<Op> free = Arbitraries.integers().between(0, Integer.MAX_VALUE).map(Free::new);
        return Arbitraries.frequencyOf(Tuple.of(5, alloc), Tuple.of(4, free)).list().ofMinSize(1).ofMaxSize(120);
    }

    @Property(tries = 400)
    void mappedRunsNeverOverlapAreReusedAndCoalesceIntoOneRun(@ForAll("ops") List<Op> ops) {
        run(RegionMode.MAPPED, ops);
    }

    @Property(tries = 150)
    void arenaRunsNeverOverlapAreReusedAndCoalesceWithinContiguousExtents(@ForAll("ops") List<Op> ops) {
        run(RegionMode.ARENA_CHUNKS, ops);
    }

    private static void run(RegionMode mode, List<Op> ops) {
        try (Region region = Region.open(REGION_SIZE, 256 << 10, mode)) {
            LargeRuns runs = new LargeRuns(region, new Budget(Long.MAX_VALUE, () -> 0), BASE, LIMIT);
            Model m = new Model(mode == RegionMode.MAPPED);
            assertEquals(BASE, runs.frontier());
            assertEquals(0, runs.freeRuns());
            long tag = 1;
            for (Op op : ops) {
                switch (op) {
                    case Alloc(int size) -> allocate(runs, region, m, size, tag++);
                    case Free(int pick) -> {
                        if (m.live.isEmpty()) continue;
                        long off = m.live.keySet().stream().skip(pick % m.live.size()).findFirst().orElseThrow();
                        free(runs, region, m, off);
                    }
                }
                m.check(runs);
            }
            // free everything: the free runs coalesce as far as memory is contiguous
            for (long off : new ArrayList<>(m.live.keySet())) {
                free(runs, region, m, off);
                m.check(runs);
            }
            long frontier = runs.frontier();
            assertEquals(m.extents.size(), runs.freeRuns(), "free runs after freeing everything");
            if (mode == RegionMode.MAPPED && frontier > BASE) {
                assertEquals(1, runs.freeRuns(), "mapped: one free run covering [base, frontier)");
                // and it is [base, frontier): a request of exactly that size takes it without growing
                long off = runs.allocate(frontier - BASE);
                assertEquals(BASE, off, "the coalesced run starts at base");
                assertEquals(frontier, runs.frontier(), "the coalesced run covers [base, frontier)");
                assertEquals(0, runs.freeRuns());
                assertTrue(runs.free(off));
                assertEquals(1, runs.freeRuns());
            }
            if (mode == RegionMode.ARENA_CHUNKS) {
                // each extent is one free run, reusable whole without growing the frontier
                for (long[] e : m.extents) {
                    long off = runs.allocate(e[1] - e[0]);
                    assertTrue(m.extents.stream().anyMatch(x -> x[0] == off && x[1] - x[0] == e[1] - e[0]),
                            () -> "an extent-sized request takes a whole extent of that size, got " + off);
                }
                assertEquals(frontier, runs.frontier(), "whole extents are reused, the frontier stays");
                assertEquals(0, runs.freeRuns());
            }
        }
    }

    private static void allocate(LargeRuns runs, Region region, Model m, int size, long tag) {
        long length = LargeRuns.pageRound(size);
        long frontierBefore = runs.frontier();
        long[] bestFit = m.bestFit(length);
        long off = runs.allocate(size);
        long frontierAfter = runs.frontier();

        assertEquals(0, off % TestSupport.PAGE, () -> "run at " + off + " is not page aligned");
        assertEquals(length, runs.length(off), "run length is the page-rounded request");
        assertTrue(off >= BASE && off + length <= frontierAfter, () -> "run " + off + "+" + length
                + " outside [base, frontier=" + frontierAfter + ")");
        if (bestFit != null) {
            assertEquals(frontierBefore, frontierAfter,
                    () -> "frontier grew for " + length + " bytes although the free run " + bestFit[0] + "+"
                            + (bestFit[1] - bestFit[0]) + " fits");
            // best fit, lowest address among equals, taken from its start (LargeRuns' class comment)
            assertEquals(bestFit[0], off, "the best-fitting free run is used, from its start");
        } else {
            // mapped memory grows contiguously: a free run ending at the frontier is extended
            long[] tail = m.mapped ? m.freePieces().stream().filter(p -> p[1] == frontierBefore)
                    .findFirst().orElse(null) : null;
            long start = tail != null ? tail[0] : frontierBefore;
            assertEquals(start, off, tail != null
                    ? "no free run fits: the free run at the top is extended past the frontier"
                    : "no free run fits: the run starts at the old frontier");
            long extent = frontierAfter - frontierBefore;
            long granule = region.extentGranularity();
            assertEquals(m.mapped ? TestSupport.PAGE : CHUNK, granule, "extent granularity: page or chunk");
            long needed = length - (frontierBefore - start);
            assertEquals((needed + granule - 1) / granule * granule, extent,
                    "the frontier grows by what the request still needs, rounded to the extent granularity");
            m.addExtent(frontierBefore, frontierAfter);
        }
        Map.Entry<Long, Long> below = m.live.floorEntry(off);
        if (below != null) {
            assertTrue(below.getKey() + below.getValue() <= off, () -> "new run " + off + "+" + length
                    + " overlaps live run " + below.getKey() + "+" + below.getValue());
        }
        Map.Entry<Long, Long> above = m.live.ceilingEntry(off);
        if (above != null) {
            assertTrue(off + length <= above.getKey(), () -> "new run " + off + "+" + length
                    + " overlaps live run " + above.getKey() + "+" + above.getValue());
        }
        m.live.put(off, length);
        m.tags.put(off, tag);
        // mark the first and last words: they must be intact when the run is freed
        region.setLongPlain(off, tag);
        region.setLongPlain(off + length - 8, ~tag);
    }

    private static void free(LargeRuns runs, Region region, Model m, long off) {
        long length = m.live.remove(off);
        long tag = m.tags.remove(off);
        assertEquals(tag, region.getLongPlain(off), "first word of a live run was overwritten");
        assertEquals(~tag, region.getLongPlain(off + length - 8), "last word of a live run was overwritten");
        assertEquals(length, runs.length(off));
        assertTrue(runs.free(off), "free of a live run");
        assertEquals(-1, runs.length(off), "a freed run has no length");
        assertTrue(!runs.free(off), "a second free of the same run is refused");
        // readable after free: released memory reads as zeros
        assertEquals(0, region.getLongPlain(off));
        assertEquals(0, region.getLongPlain(off + length - 8));
    }

    /** Live runs and extents; everything else is derived. */
    private static final class Model {
        final boolean mapped;
        final TreeMap<Long, Long> live = new TreeMap<>();
        final TreeMap<Long, Long> tags = new TreeMap<>();
        final List<long[]> extents = new ArrayList<>();

        Model(boolean mapped) {
            this.mapped = mapped;
        }

        void addExtent(long from, long to) {
            if (mapped && !extents.isEmpty() && extents.getLast()[1] == from) {
                extents.getLast()[1] = to; // contiguous memory: one extent
            } else {
                extents.add(new long[] {from, to});
            }
        }

        /** Maximal gaps between live runs inside each extent: the free runs there must be. */
        List<long[]> freePieces() {
            List<long[]> pieces = new ArrayList<>();
            for (long[] e : extents) {
                long cursor = e[0];
                for (Map.Entry<Long, Long> r : live.subMap(e[0], true, e[1], false).entrySet()) {
                    if (r.getKey() > cursor) pieces.add(new long[] {cursor, r.getKey()});
                    cursor = r.getKey() + r.getValue();
                    if (cursor > e[1]) fail("live run " + r + " crosses the end of extent " + e[0] + ".." + e[1]);
                }
                if (cursor < e[1]) pieces.add(new long[] {cursor, e[1]});
            }
            return pieces;
        }

        /** Smallest free piece of at least {@code length} bytes, lowest address first; or null. */
        long[] bestFit(long length) {
            long[] best = null;
            for (long[] p : freePieces()) {
                long l = p[1] - p[0];
                if (l >= length && (best == null || l < best[1] - best[0]
                        || (l == best[1] - best[0] && p[0] < best[0]))) {
                    best = p;
                }
            }
            return best;
        }

        void check(LargeRuns runs) {
            assertEquals(live.size(), runs.liveRuns(), "live runs");
            assertEquals(live.values().stream().mapToLong(Long::longValue).sum(), runs.liveBytes(), "live bytes");
            long covered = extents.stream().mapToLong(e -> e[1] - e[0]).sum();
            assertEquals(runs.frontier() - BASE, covered, "extents cover [base, frontier)");
            long prevEnd = Long.MIN_VALUE;
            for (Map.Entry<Long, Long> r : live.entrySet()) {
                assertTrue(r.getKey() >= prevEnd, () -> "live runs overlap at " + r);
                prevEnd = r.getKey() + r.getValue();
            }
            List<long[]> pieces = freePieces();
            assertEquals(pieces.size(), runs.freeRuns(), () -> "free runs: expected the maximal gaps "
                    + describe(pieces) + " (" + (mapped ? "mapped: full coalescing" : "arena: within extents")
                    + "), live " + live + ", extents " + describe(extents));
        }

        private static String describe(List<long[]> ranges) {
            StringBuilder sb = new StringBuilder("[");
            for (long[] r : ranges) sb.append(' ').append(r[0]).append("..").append(r[1]);
            return sb.append(" ]").toString();
        }
    }
}
