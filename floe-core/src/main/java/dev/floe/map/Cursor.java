package dev.floe.map;

import java.lang.invoke.VarHandle;

/**
 * A scan over the entries of a {@link KeyRange} whose values are present, in either direction;
 * what every iterator and navigation method of the map is built on. Weakly consistent like
 * ConcurrentSkipListMap's iterators: sorted, no key twice, every key present throughout the scan,
 * no key absent throughout it.
 *
 * <h2>Ascending</h2>
 * Locate the low bound's chunk, then follow the entries' list and the chunks' {@code next}
 * pointers. A chunk replaced meanwhile is still a frozen, sorted snapshot of its range whose
 * {@code next} leads on to chunks that were current after it, and values are shared slices, so
 * following old chunks returns present keys with their current values and never repeats a key.
 *
 * <h2>Descending (the Oak paper's stack method, no backward pointers)</h2>
 * In a chunk, start at the last sorted-prefix entry not above the bound, walk its bypass (the list
 * from that entry up to the next prefix entry), pushing the entries on a stack, then pop them:
 * that is the bypass in descending order. Then step back one prefix entry and repeat. A chunk
 * done, look up the chunk before its minKey in the index, bounded by that minKey (exclusive) so
 * that a chunk merged meanwhile cannot return keys already returned. Unlike the paper, after the
 * first bypass (the only one compared with the bound) the scan pushes the bypasses of as many
 * prefix entries at once as the fast path below reads ahead next, so that it finds that many
 * entries on the stack.
 *
 * <h2>Fast path: reading ahead</h2>
 * Once a scan is under way with no bound left to compare keys with in its direction and no
 * trace, {@link #advance} takes entries in batches (8 at first, doubling up to
 * {@link #MAX_AHEAD}): it loads their value words, then their values' lock words, then their Nova
 * headers (the second half of each value snapshot, {@link ValueSlices#stillLive}), each in a tight
 * loop (so that the cache misses on value slices, which lie in insertion order, overlap), and then
 * hands them out one by one from arrays: per entry, the fast path is a few array loads that the
 * JIT inlines into the caller's loop. A
 * snapshot taken a few entries early is still one taken during the scan, so weak consistency is
 * unchanged; entries whose values were removed are skipped as the general way would skip them,
 * and anything else (a value moved, being written, a chunk boundary going backwards) falls back
 * to the general way, which reads the entry afresh.
 */
final class Cursor {
    private final InternalOakMap<?, ?> map;
    private final KeySlices<?> keys;
    private final ValueSlices values;
    private final KeyRange range;

    /** Current chunk and, ascending, the next entry to look at (0: the chunk is done). */
    private Chunk chunk;
    private int entry;
    /** Descending: the prefix position whose bypass is on the stack, and the stack. */
    private int prefix;
    private int[] stack = new int[16];
    private int depth;
    private boolean started, finished;
    /** Ascending: entries may still lie below the low bound (the start raced with an insert). */
    private boolean belowLow;
    /** What this cursor examined, for {@link #sameAs}; null when not traced. */
    private final Trace trace;

    /** The entry found by the last successful {@link #advance}. */
    long keyPtr, valuePtr;
    /**
     * When non-zero: the lock word of {@link #valuePtr} that {@link #advance} checked the value's
     * presence with ({@link ValueSlices#snapshot}), so that a stream buffer's first read continues
     * from it instead of reading it again ({@link ValueSlices#readBitsSince}).
     */
    long valueLockWord;

    /**
     * Which fast path {@link #advance} may take next: {@link #FAST_ASCENDING} or
     * {@link #FAST_DESCENDING} while the scan is under way, untraced, and has no bound left to
     * compare keys with in its direction; else {@link #GENERAL}.
     */
    private int fast;
    private static final int GENERAL = 0, FAST_ASCENDING = 1, FAST_DESCENDING = 2;

    /**
     * How many entries the fast path reads ahead ({@link #readAhead}): the first batch holds
     * {@link #FIRST_AHEAD}, and every batch after it twice as many as the one before, up to
     * {@link #MAX_AHEAD}. A short scan (an iterator asked for a few entries) reads few values it
     * will not return; a long one keeps up to {@link #MAX_AHEAD} cache misses on scattered value
     * slices in flight.
     */
    private static final int FIRST_AHEAD = 8, MAX_AHEAD = 64;
    private int aheadWindow = FIRST_AHEAD;
    /**
     * Entries read ahead, consumed in order: entry index, key and value words, the value's lock
     * word, and whether the whole snapshot (lock word and header check) showed the value present.
     * Allocated by the first {@link #readAhead} (a navigation or a one-entry iterator never
     * needs them) for its window, and once more at {@link #MAX_AHEAD} when the window outgrows them.
     */
    private int[] aheadEntry = new int[0];
    private long[] aheadKey, aheadValue, aheadLock;
    private boolean[] aheadPresent;
    /** Next entry read ahead to consume, and how many were read ahead (0: none pending). */
    private int aheadPos, aheadLen;
    /** Ascending: the entry after the last one read ahead. */
    private int aheadNext;
    /** Descending: the stack depth when the entries were read ahead (they were its top). */
    private int aheadTop;

    Cursor(InternalOakMap<?, ?> map, KeyRange range) {
        this(map, range, false);
    }

    /**
     * @param traced record every entry examined (chunk, entry, value word), so that a second
     *               cursor can confirm nothing changed on the way ({@link #sameAs})
     */
    Cursor(InternalOakMap<?, ?> map, KeyRange range, boolean traced) {
        this.map = map;
        this.keys = map.keys;
        this.values = map.values;
        this.range = range;
        this.trace = traced ? new Trace() : null;
    }

    /**
     * Whether {@code other} examined exactly the same entries with the same value words, and
     * every chunk on the way is still current. Navigation uses this double collect for
     * linearizability: entry links are permanent and a value word never returns to an earlier
     * value (every put installs a new pointer), so two equal traces mean that every entry skipped
     * as empty or removed stayed so from the first look to the second, no entry was linked in
     * between, and the chunks were the current ones all along: at the moment the first cursor
     * read its result, the result was the first present entry of the range.
     */
    boolean sameAs(Cursor other) {
        return trace != null && other.trace != null && trace.equalTo(other.trace) && trace.chunksCurrent();
    }

    /**
     * The first present entry of {@code range} at one moment: a cursor on it, or null if the range
     * was empty then. A double collect ({@link #sameAs}): a second traced scan examined the same
     * entries with the same value words on current chunks, so at the moment the first scan ended
     * every entry it skipped was absent and none had been linked before its result. A cursor
     * counts a locked value as present without waiting ({@link #present}), so a caller may hold a
     * value's lock. One scan alone is not enough: it could pass the place where a key is then
     * inserted and find the key after it removed by the time it gets there ({@code
     * EmptinessRaceTest}, {@code PollRaceTest}).
     */
    static Cursor confirmedFirst(InternalOakMap<?, ?> map, KeyRange range) {
        while (true) {
            map.checkOpen();
            Cursor first = new Cursor(map, range, true);
            boolean found = first.advance();
            Cursor check = new Cursor(map, range, true);
            check.advance();
            if (first.sameAs(check)) return found ? first : null;
        }
    }

    /** The entries a traced cursor examined, in order. */
    private static final class Trace {
        private Chunk[] chunks = new Chunk[8];
        private long[] words = new long[16]; // entry index, value word, per entry
        private int n;

        void add(Chunk c, int e, long v) {
            if (n == chunks.length) {
                chunks = java.util.Arrays.copyOf(chunks, n * 2);
                words = java.util.Arrays.copyOf(words, n * 4);
            }
            chunks[n] = c;
            words[2 * n] = e;
            words[2 * n + 1] = v;
            n++;
        }

        boolean equalTo(Trace o) {
            if (n != o.n) return false;
            for (int i = 0; i < n; i++) {
                if (chunks[i] != o.chunks[i] || words[2 * i] != o.words[2 * i] || words[2 * i + 1] != o.words[2 * i + 1]) {
                    return false;
                }
            }
            return true;
        }

        boolean chunksCurrent() {
            for (int i = 0; i < n; i++) if (chunks[i].replacement != null) return false;
            return true;
        }
    }

    /**
     * Moves to the next entry with a present value; false at the end of the range.
     *
     * <p>The fast path (see the class overview) only copies out the next entry read ahead when
     * {@link #readAhead} confirmed its value present; it is this small so that the JIT inlines it
     * into the caller's loop. The position ({@link #entry} or {@link #depth}) lags behind it
     * until the rest ({@link #advanceBeyondAhead}) catches it up.
     */
    boolean advance() {
        int i = aheadPos;
        if (i < aheadLen && aheadPresent[i]) {
            aheadPos = i + 1;
            keyPtr = aheadKey[i];
            valuePtr = aheadValue[i];
            valueLockWord = aheadLock[i];
            return true;
        }
        return advanceBeyondAhead();
    }

    /**
     * {@link #advance} when the next entry read ahead was not confirmed present, or none is left:
     * skips entries whose value was removed as the general way would, reads ahead again, and
     * hands every other entry to the general way, which looks at it afresh.
     */
    private boolean advanceBeyondAhead() {
        if (fast != GENERAL) {
            while (true) {
                if (aheadPos == aheadLen) {
                    catchUp();
                    readAhead();
                    if (aheadLen == 0) break;
                }
                int i = aheadPos;
                if (aheadPresent[i]) return advance();
                if (!absentAhead(aheadEntry[i], aheadValue[i], aheadLock[i])) break; // the general way decides
                aheadPos = i + 1;
            }
            catchUp();
        }
        return advanceGeneral();
    }

    /**
     * Whether entry {@code e}, read ahead with value word {@code v} and lock word {@code lw}, had
     * no present value, so the fast path may skip it as the general way ({@link #present}) would:
     * no value; or a lock word that was v's own ({@link ValueSlices#sameIncarnation}) and shows
     * it removed (R is final); or v's block reused since while the entry still names v in a
     * current chunk (v was removed: a move switches the entry before it retires the old slice).
     * In each case the key was absent at some moment during the scan.
     */
    private boolean absentAhead(int e, long v, long lw) {
        if (!Chunk.holdsValue(v)) return true;
        if (values.sameIncarnation(v)) return ValueSlices.isRemoved(lw);
        return chunk.value(e) == v && chunk.replacement == null;
    }

    /**
     * Moves the position ({@link #entry} ascending, {@link #depth} descending) past the entries
     * read ahead and consumed so far; a no-op when nothing is pending, and when called again.
     */
    private void catchUp() {
        if (aheadLen == 0) return;
        if (fast == FAST_ASCENDING) entry = aheadPos < aheadLen ? aheadEntry[aheadPos] : aheadNext;
        else depth = aheadTop - aheadPos;
    }

    /**
     * Reads ahead for the fast path: the next {@link #aheadWindow} entries in scan order within the
     * chunk (ascending: along the list from {@link #entry}; descending: the top of the stack),
     * their value words, the first half of their value snapshots (the lock words,
     * {@link ValueSlices#lockWordPlain}) and then the second half ({@link ValueSlices#stillLive},
     * one header load each), each in a tight loop of plain loads followed by an acquire fence
     * (so each loop's loads are ordered before the next loop's, as acquire loads would be), so
     * that the cache misses on scattered value slices overlap instead of following one another. A snapshot read ahead is taken a few entries early: a present lock word that the
     * header check confirms was the incarnation's own means the key was present at that load,
     * during the scan (weak consistency), which is all a returned entry promises. A stream
     * buffer's first read re-checks that lock word after its own loads
     * ({@link ValueSlices#readBitsSince}). An entry whose value was removed is skipped
     * ({@link #absentAhead}). Any other entry (a value moved or being written) goes the general
     * way, which reads its value word afresh.
     */
    private void readAhead() {
        aheadPos = aheadLen = 0;
        int window = aheadWindow;
        if (aheadEntry.length < window) {
            // Two sizes: the first window's, then the largest. Growing with every doubling of the
            // window (8, 16, 32, 64) allocated about 3.8 KB per long scan, 2.3 KB this way.
            int size = aheadEntry.length == 0 ? window : MAX_AHEAD;
            aheadEntry = new int[size];
            aheadKey = new long[size];
            aheadValue = new long[size];
            aheadLock = new long[size];
            aheadPresent = new boolean[size];
        }
        if (window < MAX_AHEAD) aheadWindow = window * 2;
        int n = 0;
        if (fast == FAST_ASCENDING) {
            if (entry == 0) { // the chunk is done: on to the next (as the general way would)
                Chunk next = chunk.next;
                if (next == null) return;
                chunk = next;
                entry = next.next(0);
            }
            Chunk c = chunk;
            int e = entry;
            for (; e != 0 && n < window; n++) {
                aheadEntry[n] = e;
                e = c.nextInScan(e);
            }
            aheadNext = e;
        } else {
            if (depth == 0 && prefix > 0) stepBack(); // no bound left to compare with in this chunk
            aheadTop = depth;
            for (; n < depth && n < window; n++) aheadEntry[n] = stack[depth - 1 - n];
        }
        Chunk c = chunk;
        // Plain loads, each loop followed by an acquire fence: the fence orders every load of the
        // loop before every later load (VarHandle.acquireFence), which is what an acquire load
        // per element would give, without a compiler barrier per element that makes the JIT
        // reload the region's and segment's fields for every off-heap load.
        for (int i = 0; i < n; i++) aheadValue[i] = c.valuePlain(aheadEntry[i]);
        VarHandle.acquireFence(); // the value words before the lock words: slices initialised before
        for (int i = 0; i < n; i++) {
            long v = aheadValue[i];
            aheadLock[i] = Chunk.holdsValue(v) ? values.lockWordPlain(v) : 0;
        }
        VarHandle.acquireFence(); // the lock words before the header checks (and every later load)
        for (int i = 0; i < n; i++) {
            aheadPresent[i] = ValueSlices.isPresent(aheadLock[i]) && values.stillLive(aheadValue[i]);
            aheadKey[i] = c.key(aheadEntry[i]);
        }
        aheadLen = n;
    }

    private boolean advanceGeneral() {
        aheadPos = aheadLen = 0; // the general way moves the position itself
        if (finished) return false;
        boolean descending = range.descending();
        boolean found = descending ? advanceDescending() : advanceAscending();
        if (!found) finished = true;
        fast = !found || trace != null ? GENERAL
                : descending ? (range.lo() == null ? FAST_DESCENDING : GENERAL)
                : (range.hi() == null && !belowLow ? FAST_ASCENDING : GENERAL);
        return found;
    }

    // ---- ascending -----------------------------------------------------------------------------

    private boolean advanceAscending() {
        if (!started) {
            started = true;
            startAscending();
        }
        while (true) {
            if (entry == 0) {
                chunk = chunk.next;
                if (chunk == null) return false;
                entry = chunk.next(0);
                continue;
            }
            Chunk c = chunk;
            int e = entry;
            entry = c.next(e);
            long v = c.value(e);
            if (trace != null) trace.add(c, e, v);
            if (!Chunk.holdsValue(v)) continue;
            long k = c.key(e);
            if (belowLow) {
                // the start position was read after the search compared: an entry linked there
                // meanwhile may be below the bound
                int cmp = keys.compare(range.lo(), k);
                if (cmp == KeySlices.RETRY) continue;
                if (cmp > 0 || (cmp == 0 && !range.loInclusive())) continue;
                belowLow = false;
            }
            if (range.hi() != null) {
                int cmp = keys.compare(range.hi(), k);
                if (cmp == KeySlices.RETRY) continue; // retired: its entry was dropped, removed
                if (cmp < 0 || (cmp == 0 && !range.hiInclusive())) return false;
            }
            long live = present(e, v, k);
            if (live == 0) continue;
            keyPtr = k;
            valuePtr = live;
            return true;
        }
    }

    private void startAscending() {
        Object lo = range.lo();
        if (lo == null) {
            chunk = map.firstChunk();
            entry = chunk.next(0);
            return;
        }
        while (true) {
            Chunk c = map.locate(lo);
            int r = c.search(keys, lo);
            if (r == Chunk.RETRY) {
                map.retryUnlessClosed();
                continue;
            }
            chunk = c;
            if (r > 0) entry = range.loInclusive() ? r : c.next(r);
            else entry = c.next(-r - 1);
            belowLow = true;
            return;
        }
    }

    // ---- descending ----------------------------------------------------------------------------

    private boolean advanceDescending() {
        if (!started) {
            started = true;
            if (!startDescending()) return false;
        }
        while (true) {
            if (depth == 0) {
                if (prefix > 0) {
                    stepBack();
                    continue;
                }
                if (!previousChunk()) return false;
                continue;
            }
            int e = stack[--depth];
            long v = chunk.value(e);
            if (trace != null) trace.add(chunk, e, v);
            if (!Chunk.holdsValue(v)) continue;
            long k = chunk.key(e);
            if (range.lo() != null) {
                int cmp = keys.compare(range.lo(), k);
                if (cmp == KeySlices.RETRY) continue;
                if (cmp > 0 || (cmp == 0 && !range.loInclusive())) return false;
            }
            long live = present(e, v, k);
            if (live == 0) continue;
            keyPtr = k;
            valuePtr = live;
            return true;
        }
    }

    private boolean startDescending() {
        Object hi = range.hi();
        Chunk c = hi == null ? map.lastChunk() : map.locate(hi);
        return enterChunk(c, hi, range.hiInclusive(), null);
    }

    /** Moves to the chunk before the current one; false if the current one is the first. */
    private boolean previousChunk() {
        KeyCopy min = chunk.minKey;
        if (min == null) return false;
        Chunk p = map.chunkBefore(min);
        // p's keys are below min unless p was merged with the chunk we just finished
        boolean bounded = p.next != chunk || p.replacement != null || chunk.replacement != null;
        return enterChunk(p, bounded ? min : null, false, bounded ? min : null);
    }

    /** Starts chunk {@code c} at its last entry not above {@code bound}; false if nothing can follow. */
    private boolean enterChunk(Chunk c, Object bound, boolean inclusive, KeyCopy exclusiveCeiling) {
        depth = 0;
        while (true) {
            int s = c.prefixFloor(keys, bound, inclusive);
            if (s == Chunk.RETRY) {
                // c was replaced and its keys retired: look again
                map.retryUnlessClosed();
                if (exclusiveCeiling != null) c = map.chunkBefore(exclusiveCeiling);
                else c = bound == null ? map.lastChunk() : map.locate(bound);
                continue;
            }
            chunk = c;
            prefix = s;
            highBound = bound;
            highInclusive = inclusive;
            fillStack(s);
            // Only the first bypass can hold entries above the bound: every later one lies below
            // prefix entry s, whose key is at most the bound. So the later ones need no compares.
            highBound = null;
            return true;
        }
    }

    /**
     * Pushes the bypasses of the next {@link #aheadWindow} prefix entries below {@link #prefix}
     * at once (the paper steps back one at a time), so that the fast path finds enough entries on
     * the stack to read ahead.
     */
    private void stepBack() {
        int last = prefix - 1;
        prefix = Math.max(0, last - aheadWindow + 1);
        fillStack(last);
    }

    /** Upper bound within the current chunk (null: none) and whether it is inclusive. */
    private Object highBound;
    private boolean highInclusive;

    /**
     * Pushes the prefix entries {@link #prefix} to {@code last} and their bypasses (prefix entry 0
     * stands for the entries before the first prefix entry), in list order, keeping only entries
     * not above the chunk's high bound. The walk starts at prefix entry {@link #prefix} and stops
     * at the first prefix entry after {@code last}: prefix entries are linked in index order and
     * inserts only add entries above {@link Chunk#sorted} between them.
     */
    private void fillStack(int last) {
        Chunk c = chunk;
        int start = prefix;
        int e = start == 0 ? c.next(0) : start;
        while (e != 0 && (e <= last || e > c.sorted)) {
            if (highBound != null) {
                int cmp = keys.compare(highBound, c.key(e));
                if (cmp != KeySlices.RETRY && (cmp < 0 || (cmp == 0 && !highInclusive))) break;
            }
            if (depth == stack.length) stack = java.util.Arrays.copyOf(stack, depth * 2);
            stack[depth++] = e;
            e = c.next(e);
        }
    }

    // ---- values --------------------------------------------------------------------------------

    /** The live value slice for entry e (value word v, key k) of the current chunk: v or where it moved; 0 if removed. */
    private long present(int e, long v, long k) {
        long lw = values.snapshot(v);
        valueLockWord = lw;
        if (lw != 0) return v; // the common case: live where the entry says
        long live = values.resolve(v);
        if (live != ValueSlices.LOST) return live;
        // v's slice was retired and reused. If the entry still names v in a current chunk, v was
        // removed (a move switches the entry before it retires the old slice). A replaced chunk's entry may be stale: ask
        // the current chunks.
        if (chunk.value(e) == v && chunk.replacement == null) return 0;
        KeyCopy key = keys.copy(k);
        return key == null ? 0 : map.liveValue(key);
    }
}
