package dev.floe.map;

import java.util.Arrays;

/**
 * Rebalance (Oak paper, section 4.1): replaces a chunk (and, when both are sparse, its successor)
 * by new chunks holding only the live entries, in a sorted prefix, split so each is at most half
 * full. This is how the map compacts its bypass lists, splits full chunks, merges sparse ones and
 * drops removed keys (retiring their key slices through Nova).
 *
 * <h2>Protocol</h2>
 * Rebalances run one at a time under {@link InternalOakMap#rebalanceLock}; lookups, reads and
 * in-place value writes never take it, updates wait for it only when they find their chunk
 * frozen.
 * <ol>
 *   <li><b>Freeze</b> the chunks ({@link Chunk#freeze}): no entry of theirs changes after this
 *       (published updates have finished; new ones fail and wait for the lock).</li>
 *   <li><b>Copy</b> the entries whose value is present into new chunks (their key and value
 *       pointers: slices are shared, not copied; which values are checked: see below). The first
 *       new chunk keeps the old minKey, so the
 *       ranges of the chunk list are unchanged; the others take an on-heap copy of their first
 *       key as minKey.</li>
 *   <li><b>Publish</b>: link the last new chunk to the old successor, set
 *       {@link Chunk#replacement} on the old chunks, then swing the predecessor's {@code next} (or
 *       {@code head}) to the first new chunk (one volatile store: the list changes at once). While
 *       a chunk has no replacement it is current, which is what a lookup relies on.</li>
 *   <li><b>Retire</b> the keys of entries the copy dropped (value empty, or checked and found
 *       removed).</li>
 *   <li><b>Index</b>: map every new minKey to its chunk and drop the merged chunk's mapping (the
 *       index may lag the list meanwhile: lookups walk forward and follow replacements).</li>
 * </ol>
 * <b>A rebalance that fails</b> (user code it calls throws: the comparator's
 * {@link OakComparator#prefixOfSerialized} when a new chunk's first key is copied, a comparison
 * while it looks for the predecessor; or an on-heap allocation fails) before its publish store
 * unfreezes the chunks and changes nothing: the updates waiting for it retry on the old chunks,
 * and the exception reaches the operation that asked for the rebalance, whose own change is done
 * (a put that filled the chunk has inserted). A frozen chunk without a replacement would make
 * every update of its keys wait forever. After the publish the list is complete: the keys the
 * copy dropped are retired first, and a comparison that fails while the index is updated leaves
 * the index behind the list, which lookups tolerate (they walk forward from the index's floor
 * and follow replacements), as they tolerate its lag during a rebalance.
 *
 * <p><b>Why nothing is lost</b>: an update changes an entry only while published, so the copy sees
 * every completed entry change, and updates that had not published retry on the new chunks.
 * Value bytes live in shared slices, so in-place writes during the copy land in the value the new
 * chunk points to. A value being removed during the copy is copied and reads as removed. A value
 * being moved (grown) keeps its locked old pointer in the copy; the mover then finds the entry in
 * the new chunk and installs the new pointer there.
 *
 * <h2>Which entries are checked</h2>
 * Whether a value was removed is known only off-heap (its lock word), so checking every entry
 * costs a cache miss per entry, most of a rebalance's time when the chunk had only inserts. The
 * copy therefore checks values only in a chunk whose {@link Chunk#removals} count, read after the
 * freeze, is non-zero; a chunk without counted removals is copied whole. This drops no entry it
 * should keep, and leaves no removed entry behind for good: a remove counts itself in the chunk
 * that holds its entry before it returns, and when it finds that chunk frozen it counts again in
 * the replacement ({@link InternalOakMap#finalizeRemove}), so a removed entry copied unchecked
 * is counted in its new chunk, whose next rebalance checks and drops it. (Only a remover stalled
 * between its R store and its count leaves its entry uncounted, until it resumes; a remover whose
 * comparator throws before it finds the entry to count sets the map's
 * {@link InternalOakMap#uncountedRemovals}, after which every chunk is checked.) An entry whose
 * value word is marked removed ({@link Chunk#markRemoved}) is dropped without a look off-heap,
 * checked chunk or not: the mark is only ever set on a removed value.
 *
 * <h2>Thresholds</h2>
 * Chunks start small ({@code firstChunkEntries}, 16 by default, so an empty map costs a few hundred
 * bytes and thousands of maps are cheap); a rebalance sizes each new chunk at twice its live
 * entries, up to {@code maxChunkEntries} (4096, as in Oak), so the on-heap entry arrays cost at
 * most 64 bytes per live entry after a rebalance. A rebalance is triggered by a full chunk, by bypass lists longer than half the
 * sorted prefix (Oak's rule), or by removes that emptied half of the entries in use. New chunks are at most
 * half full, so the next rebalance comes after as many inserts as the chunk holds. A chunk with
 * fewer than a quarter of the maximum live entries absorbs its successor if the two fit in one.
 */
final class Rebalancer<K> {
    private final InternalOakMap<K, ?> map;
    private final int minEntries;
    private long[] keysBuf = new long[64];
    private long[] valuesBuf = new long[64];
    private long[] prefixBuf = new long[64];
    private long[] droppedBuf = new long[64];

    Rebalancer(InternalOakMap<K, ?> map, int minEntries) {
        this.map = map;
        this.minEntries = minEntries;
    }

    void rebalance(Chunk c) {
        map.rebalanceLock.lock();
        try {
            if (c.replacement != null || map.closed) return; // done by someone else meanwhile
            c.freeze();
            Chunk last = c;
            Chunk[] built;
            Chunk pred;
            int dropped;
            try {
                int[] counts = collect(c, 0, 0);
                int live = counts[0];
                dropped = counts[1];
                Chunk n = c.next;
                int max = map.maxChunkEntries;
                if (n != null && live < max / 4 && liveUpperBound(n) + live <= max / 2) {
                    n.freeze();
                    last = n;
                    counts = collect(n, live, dropped);
                    live = counts[0];
                    dropped = counts[1];
                }
                built = build(c.minKey, live);
                pred = predecessor(c);
            } catch (Throwable t) { // nothing published yet: see "A rebalance that fails"
                c.unfreeze();
                if (last != c) last.unfreeze();
                throw t;
            }
            built[built.length - 1].next = last.next;
            // Replacement first: a reader that still finds no replacement on c knows c is current
            // (no update can reach the new chunks before this store makes them reachable).
            c.replacement = built[0];
            if (last != c) last.replacement = built[0];
            if (pred == null) map.head = built[0];
            else pred.next = built[0];
            for (int i = 0; i < dropped; i++) map.retireKey(droppedBuf[i]);
            if (c.minKey != null) c.minKey.chunk = built[0]; // the same key object starts built[0]
            for (int i = 1; i < built.length; i++) built[i].minKey.chunk = built[i]; // before the keys are in the index
            if (last != c) map.index.remove(last.minKey);
            for (int i = 1; i < built.length; i++) map.index.add(built[i].minKey);
        } finally {
            map.rebalanceLock.unlock();
        }
    }

    /**
     * Appends the live entries of frozen chunk {@code c} to the buffers; returns {live, dropped}.
     * Reads the values' lock words (one cache miss off-heap per entry) only if the chunk counted
     * a removal: see "Which entries are checked" above.
     */
    private int[] collect(Chunk c, int live, int dropped) {
        ValueSlices values = map.values;
        boolean check = c.removals != 0 || map.uncountedRemovals; // read after the freeze
        for (int e = c.next(0); e != 0; e = c.next(e)) {
            long k = c.key(e), v = c.value(e);
            if (Chunk.holdsValue(v) && (!check || values.isLive(v))) {
                if (live == keysBuf.length) {
                    keysBuf = Arrays.copyOf(keysBuf, live * 2);
                    valuesBuf = Arrays.copyOf(valuesBuf, live * 2);
                    prefixBuf = Arrays.copyOf(prefixBuf, live * 2);
                }
                prefixBuf[live] = c.prefix(e);
                keysBuf[live] = k;
                valuesBuf[live++] = v;
            } else {
                if (dropped == droppedBuf.length) droppedBuf = Arrays.copyOf(droppedBuf, dropped * 2);
                droppedBuf[dropped++] = k;
            }
        }
        return new int[] {live, dropped};
    }

    /** Live entries a chunk may hold at most (a cheap bound, without reading values). */
    private static int liveUpperBound(Chunk n) {
        return n.used() - Math.max(0, n.removals);
    }

    /** New chunks for the {@code live} collected entries, each at most half full. */
    private Chunk[] build(KeyCopy firstMinKey, int live) {
        int max = map.maxChunkEntries;
        int perChunk = Math.max(1, max / 2);
        int pieces = Math.max(1, (live + perChunk - 1) / perChunk);
        Chunk[] out = new Chunk[pieces];
        int from = 0;
        for (int i = 0; i < pieces; i++) {
            int count = (live - from) / (pieces - i);
            int capacity = Math.min(max, Math.max(minEntries, 2 * count)); // at most half full
            KeyCopy minKey = i == 0 ? firstMinKey : map.keys.copy(keysBuf[from]);
            if (minKey == null && i != 0) {
                throw new IllegalStateException("internal: a live key of a frozen chunk was retired");
            }
            Chunk chunk = new Chunk(minKey, capacity, count);
            for (int j = 0; j < count; j++) chunk.fill(j + 1, keysBuf[from + j], valuesBuf[from + j], prefixBuf[from + j]);
            if (i > 0) out[i - 1].next = chunk;
            out[i] = chunk;
            from += count;
        }
        return out;
    }

    /** The live chunk whose next is {@code c}, or null if {@code c} is the head. */
    private Chunk predecessor(Chunk c) {
        if (c.minKey == null) return null;
        Chunk p = map.chunkBefore(c.minKey);
        while (p.next != c) {
            p = p.next;
            if (p == null) throw new IllegalStateException("internal: a live chunk is not in the list");
        }
        return p;
    }
}
