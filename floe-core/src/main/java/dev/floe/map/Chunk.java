package dev.floe.map;

import dev.floe.reclaim.Backoff;
import dev.floe.reclaim.SafePointer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A chunk of the Oak map (Oak paper, section 4.1): the entries of one contiguous key range
 * [{@link #minKey}, next chunk's minKey), on-heap, in one primitive array.
 *
 * <h2>Entries</h2>
 * <pre>
 * entries: long[(capacity + 1) * 4]     entry e occupies [4e, 4e + 4) (32 bytes):
 *   +0 NEXT    index of the next entry in key order (0: end of list)
 *   +1 KEY     Nova safe pointer to the serialized key (immutable once linked)
 *   +2 VALUE   Nova safe pointer to the value slice ({@link ValueSlices}); 0: no value;
 *              the pointer with Nova's deleted bit set ({@link SafePointer#markDeleted}): a
 *              removed value, marked by {@link #markRemoved}, so no value either
 *   +3 PREFIX  the key's order prefix ({@link OakComparator#prefixOf}), immutable once linked
 * </pre>
 * Searches compare the prefix first (on-heap, beside the entry, and for the sorted prefix also in
 * the dense {@link #sortedPrefixes} that binary searches read) and read the off-heap key only
 * when the prefixes are equal; with a comparator that supplies prefixes, a lookup reads about one
 * key off-heap instead of one per binary-search step.
 * Entry 0 is the list head (only NEXT is used). Entries 1..{@link #sorted} were written by the
 * rebalance that created the chunk, in key order and linked in that order: the <em>sorted
 * prefix</em>, searched by binary search. Later inserts take the next free entry (a fetch-and-add
 * on {@link #allocated}) and are linked into the list with a CAS on their predecessor's NEXT, in
 * the bypass between two prefix entries. An entry is never unlinked and its key never changes,
 * so a search may walk the list while others insert; removed keys stay in the list with an empty
 * or removed value until a rebalance drops them.
 *
 * <h2>Publish / freeze</h2>
 * Updates that change an entry (link a new entry, install a value pointer) first
 * {@link #publish} themselves, which fails once a rebalance has {@link #freeze}d the chunk; the
 * rebalance waits until the published updates have {@link #unpublish}ed and then copies a chunk
 * no one can change. A publication covers only the CAS that changes the entry, never user code
 * (a comparator that closed the map or rebalanced this chunk would wait for itself: the freeze
 * would wait for its own publication). Value bytes are written in the shared value slice, not in
 * the chunk, so in-place writes need no publication and survive the copy. The state word packs both:
 * <pre>
 *  63 (FROZEN)   62 .. 0: number of published updates in progress
 * </pre>
 */
final class Chunk {
    static final int NEXT = 0, KEY = 1, VALUE = 2, PREFIX = 3, STRIDE = 4;
    /** {@link #search} result when a key it compared was retired (the chunk was replaced). */
    static final int RETRY = Integer.MIN_VALUE;
    /** {@link #link} result when the chunk was frozen before the link: wait for the rebalance, then look again. */
    static final int FROZEN_RETRY = Integer.MIN_VALUE + 1;
    private static final long FROZEN = 1L << 63;
    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle STATE, ALLOCATED;

    final long[] entries;
    /**
     * The sorted prefix's order prefixes again, densely and flipped: {@code sortedPrefixes[e]} is
     * entry e's prefix {@code ^ Long.MIN_VALUE} for e in 1..{@link #sorted}, so that signed
     * {@code <} on the array is the unsigned order of the prefixes (what lets
     * {@link #prefixSearch} use a conditional move). Written with the entries before the chunk is
     * published and never changed. The binary searches read only this array: eight prefixes per
     * cache line instead of two, so a search's last steps stay in one line (8 bytes per prefix
     * entry on-heap).
     */
    private final long[] sortedPrefixes;
    /** Usable entries: 1..capacity. */
    final int capacity;
    /** Entries 1..sorted form the sorted prefix. */
    final int sorted;
    /** The smallest key this chunk may hold; null for the first chunk (minus infinity). */
    final KeyCopy minKey;
    /** The next chunk in key order (changed only by a rebalance, under its lock). */
    volatile Chunk next;
    /** Set once a rebalance has replaced this chunk: the new chunk covering {@link #minKey}. */
    volatile Chunk replacement;
    /** Entries handed out so far (may exceed capacity: such claims fail). */
    private volatile int allocated;
    private volatile long state;
    /**
     * Removes counted in this chunk since it was built (approximate: racing increments may lose
     * one). A rebalance trigger, and a promise the rebalance relies on: once a remove has
     * finished ({@link InternalOakMap#finalizeRemove}), the chunk holding its entry has a
     * non-zero count (see {@link Rebalancer}, "Which entries are checked").
     */
    volatile int removals;

    Chunk(KeyCopy minKey, int capacity, int sorted) {
        this.minKey = minKey;
        this.capacity = capacity;
        this.sorted = sorted;
        this.entries = new long[(capacity + 1) * STRIDE];
        this.sortedPrefixes = new long[sorted + 1];
        this.allocated = sorted;
    }

    // ---- entry access ------------------------------------------------------------------------

    int next(int e) {
        return (int) (long) ENTRY.getAcquire(entries, e * STRIDE + NEXT);
    }

    /**
     * {@link #next} for a scan walking the list: a plain load when the successor is a
     * sorted-prefix entry or the end (prefix entries were written before the chunk was published,
     * and the scan reached the chunk through a volatile read, so nothing needs acquiring), and the
     * acquire load when it is a later insert (whose key and value its link CAS published).
     */
    int nextInScan(int e) {
        int n = (int) entries[e * STRIDE + NEXT];
        return n <= sorted ? n : next(e);
    }

    /** The key of a linked entry (published by the CAS that linked it, acquired through NEXT). */
    long key(int e) {
        return entries[e * STRIDE + KEY];
    }

    /** The order prefix of a linked entry (published and acquired like its key). */
    long prefix(int e) {
        return entries[e * STRIDE + PREFIX];
    }

    long value(int e) {
        return (long) ENTRY.getAcquire(entries, e * STRIDE + VALUE);
    }

    /**
     * {@link #value} with a plain load, for a caller that puts an acquire fence after it (a batch
     * of loads, one fence: see {@code Cursor.readAhead}). A long array element is read whole.
     */
    long valuePlain(int e) {
        return entries[e * STRIDE + VALUE];
    }

    /**
     * Whether value word {@code v} names a value that may be present: not 0 and not marked
     * removed. Every reader of value words asks this before it touches the value off-heap.
     */
    static boolean holdsValue(long v) {
        return v != 0 && !SafePointer.isDeleted(v);
    }

    /**
     * Marks entry e's value word {@code removed} as removed (Nova's deleted bit on the pointer, the
     * paper's local mark) so that scans, lookups and rebalances skip the entry without loading the
     * slice's lock word off-heap. Only for a value whose lock word already shows it removed (R is
     * final): a word is marked only after its removal's linearization point, and stays marked
     * until a put replaces it. The marked word is a new value of the entry (the value word still
     * never returns to an earlier value, as {@code Cursor.sameAs} needs), and a put that read the
     * unmarked word fails its CAS and reads again. A hint needing no publication: a rebalance that
     * copies the entry meanwhile finds the value removed either way (see {@code Rebalancer}).
     */
    void markRemoved(int e, long removed) {
        ENTRY.compareAndSet(entries, e * STRIDE + VALUE, removed, SafePointer.markDeleted(removed));
    }

    /** Installs a value pointer; the CAS also publishes the value's bytes. */
    boolean casValue(int e, long expected, long value) {
        return ENTRY.compareAndSet(entries, e * STRIDE + VALUE, expected, value);
    }

    /** Fills a new chunk's sorted-prefix entry e (1..{@link #sorted}, before the chunk is published). */
    void fill(int e, long key, long value, long prefix) {
        entries[e * STRIDE + KEY] = key;
        entries[e * STRIDE + VALUE] = value;
        entries[e * STRIDE + PREFIX] = prefix;
        sortedPrefixes[e] = prefix ^ Long.MIN_VALUE;
        entries[(e - 1) * STRIDE + NEXT] = e;
    }

    // ---- publish / freeze ----------------------------------------------------------------------

    /** Announces an update; false if the chunk is frozen (wait for the rebalance, then retry). */
    boolean publish() {
        while (true) {
            long s = state;
            if ((s & FROZEN) != 0) return false;
            if (STATE.compareAndSet(this, s, s + 1)) return true;
        }
    }

    void unpublish() {
        STATE.getAndAdd(this, -1L);
    }

    /** Whether a rebalance (or close) has frozen the chunk (volatile read). */
    boolean isFrozen() {
        return (state & FROZEN) != 0;
    }

    /** Stops new updates and waits for the published ones to finish (called under the rebalance lock). */
    void freeze() {
        STATE.getAndBitwiseOr(this, FROZEN);
        for (int spins = 0; (state & ~FROZEN) != 0; spins++) Backoff.step(spins);
    }

    /**
     * Undoes {@link #freeze} for a rebalance that failed before it published anything (see
     * {@link Rebalancer}, "A rebalance that fails"): the chunk is current again and the updates
     * waiting for the rebalance lock publish on it when they retry.
     */
    void unfreeze() {
        STATE.getAndBitwiseAnd(this, ~FROZEN);
    }

    /**
     * Claims a free entry; 0 if the chunk is full. Needs no publication: the entry is private
     * until {@link #link} (published) makes it reachable, and a claim on a frozen chunk only
     * wastes an entry of a chunk that is being replaced (so {@link #used} may still grow after a
     * freeze: a rebalance reads it as an upper bound, never to find entries).
     */
    int allocateEntry() {
        int e = (int) ALLOCATED.getAndAdd(this, 1) + 1;
        return e <= capacity ? e : 0;
    }

    /** Entries claimed so far (at most the capacity). */
    int used() {
        return Math.min(allocated, capacity);
    }

    /**
     * Whether the chunk should be rebalanced: full, or its unsorted bypasses have grown past half
     * the sorted prefix (Oak's rule: searches then walk long lists), or removes left more than
     * half of the entries empty.
     */
    boolean needsRebalance() {
        int used = used();
        return used >= capacity || used - sorted > Math.max(sorted / 2, 32) || (removals > 0 && 2 * removals >= used);
    }

    // ---- search and link ---------------------------------------------------------------------

    /**
     * Finds {@code probe}: the entry holding it (> 0), or {@code -(pred + 1)} where {@code pred} is
     * the entry after which it would be linked (0: the head), or {@link #RETRY}. Binary search over
     * the sorted prefix for the last key not above the probe, then a walk along its bypass.
     */
    int search(KeySlices<?> keys, Object probe) {
        long prefix = keys.prefixOfProbe(probe);
        int pred = 0;
        int lo = 1, hi = sorted;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compareSortedAt(keys, probe, prefix, mid);
            if (c == KeySlices.RETRY) return RETRY;
            if (c == 0) return mid;
            if (c > 0) {
                pred = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return walk(keys, probe, prefix, pred);
    }

    /**
     * A binary search of the sorted prefix by order prefixes alone (no key read): the first
     * entry whose prefix equals {@code prefix} (> 0), or {@code -(pred + 1)} where {@code pred}
     * is the last prefix entry whose prefix is below it (0: the head), from which {@link #walk}
     * continues. With prefixes that rarely collide, the entry found holds the probe's key if the
     * key is in the sorted prefix, and the caller can start reading its value before it reads the
     * key to confirm.
     */
    int prefixSearch(long prefix) {
        // A branch-free lower bound: [base, base + n) holds the first entry whose prefix is at
        // least the probe's (or base + n when there is none), every entry before base is below
        // it. Each step halves n and moves base with a conditional move rather than a branch:
        // the comparison is a coin toss for random keys, so a branch would be mispredicted at
        // half of the steps (about 20 ns of a 2,048-entry search on the development machine).
        long p = prefix ^ Long.MIN_VALUE;
        long[] flipped = sortedPrefixes;
        int base = 1, n = sorted;
        while (n > 1) {
            int half = n >>> 1;
            base = flipped[base + half - 1] < p ? base + half : base;
            n -= half;
        }
        int first = n == 1 && flipped[base] < p ? base + 1 : base; // sorted + 1 if none
        return first <= sorted && flipped[first] == p ? first : -first; // -(pred + 1), pred = first - 1
    }

    /**
     * {@link #prefixSearch} continued along the list from {@code pred} (a result of it), still by
     * order prefixes alone: the first entry of the bypass whose prefix equals {@code prefix}
     * (> 0), or {@code -(pred + 1)} where {@code pred} is the last entry whose prefix is below it
     * (so its key is below the probe's: {@link #link} and {@link #walk} may continue from it).
     * No key is read, so a caller can start loading the value of the entry found before it reads
     * the key to confirm it.
     */
    int prefixWalk(long prefix, int pred) {
        for (int cur = next(pred); cur != 0; cur = next(cur)) {
            int c = Long.compareUnsigned(prefix, prefix(cur));
            if (c == 0) return cur;
            if (c < 0) break;
            pred = cur;
        }
        return -(pred + 1);
    }

    /**
     * Sign of {@code probe} (whose prefix is {@code prefix}) compared with entry {@code e}'s key,
     * or {@link KeySlices#RETRY}: unequal prefixes decide without reading the key.
     */
    int compareAt(KeySlices<?> keys, Object probe, long prefix, int e) {
        int c = Long.compareUnsigned(prefix, prefix(e));
        return c != 0 ? c : keys.compare(probe, key(e));
    }

    /** {@link #compareAt} for sorted-prefix entry {@code e}, its prefix from the dense copy. */
    private int compareSortedAt(KeySlices<?> keys, Object probe, long prefix, int e) {
        int c = Long.compare(prefix ^ Long.MIN_VALUE, sortedPrefixes[e]);
        return c != 0 ? c : keys.compare(probe, key(e));
    }

    /** Continues a search along the list from {@code pred}, whose key is below the probe. */
    int walk(KeySlices<?> keys, Object probe, long prefix, int pred) {
        for (int cur = next(pred); cur != 0; cur = next(cur)) {
            int c = compareAt(keys, probe, prefix, cur);
            if (c == KeySlices.RETRY) return RETRY;
            if (c == 0) return cur;
            if (c < 0) break;
            pred = cur;
        }
        return -(pred + 1);
    }

    /**
     * Links entry {@code e} (its key and value already written, {@link #prepare}) after
     * {@code pred}, walking on if others linked keys in between. Returns {@code e} when linked
     * (the CAS is the insert's linearization point: key and value appear together), the entry
     * that already holds the key, {@link #RETRY}, or {@link #FROZEN_RETRY} when a rebalance (or
     * the map's close) froze the chunk first.
     *
     * <p>Only the CAS is published: the walk's comparisons (user code: the comparator) run
     * unpublished, so that user code never runs while this thread holds up a {@link #freeze} (a
     * comparator that closes the map, or updates it so that this chunk is rebalanced, would
     * otherwise wait for itself for ever). That is safe because entries are never unlinked and
     * their keys never change: the walk reads a list that only grows, and the CAS, which expects
     * exactly the successor the walk compared the probe with, fails if anything was linked there
     * meanwhile. A walk that a rebalance overtook reads a frozen chunk (or meets a retired key:
     * {@link #RETRY}); its publish then fails.
     */
    int link(KeySlices<?> keys, Object probe, int e, int pred) {
        long prefix = prefix(e);
        while (true) {
            // The CAS must expect exactly the successor this walk compared the probe with: an
            // entry linked after that comparison may belong between pred and the new entry.
            int cur = next(pred);
            while (cur != 0) {
                int c = compareAt(keys, probe, prefix, cur);
                if (c == KeySlices.RETRY) return RETRY;
                if (c == 0) return cur;
                if (c < 0) break;
                pred = cur;
                cur = next(cur);
            }
            // e is unreachable until the CAS below, which publishes this word with key and value
            ENTRY.setRelease(entries, e * STRIDE + NEXT, (long) cur);
            if (!publish()) return FROZEN_RETRY;
            boolean linked;
            try {
                linked = ENTRY.compareAndSet(entries, pred * STRIDE + NEXT, (long) cur, (long) e);
            } finally {
                unpublish();
            }
            if (linked) return e;
        }
    }

    /** Writes an entry's key and value before it is linked (the link CAS publishes them). */
    void prepare(int e, long key, long value, long prefix) {
        entries[e * STRIDE + KEY] = key;
        entries[e * STRIDE + VALUE] = value;
        entries[e * STRIDE + PREFIX] = prefix;
    }

    /**
     * The last prefix entry whose key is at most {@code probe} (or below it when
     * {@code inclusive} is false); 0 if none; {@link #RETRY}. A null probe means +infinity.
     */
    int prefixFloor(KeySlices<?> keys, Object probe, boolean inclusive) {
        if (probe == null) return sorted;
        long prefix = keys.prefixOfProbe(probe);
        int found = 0;
        int lo = 1, hi = sorted;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compareSortedAt(keys, probe, prefix, mid);
            if (c == KeySlices.RETRY) return RETRY;
            if (c > 0 || (c == 0 && inclusive)) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(Chunk.class, "state", long.class);
            ALLOCATED = l.findVarHandle(Chunk.class, "allocated", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
