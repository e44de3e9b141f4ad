package dev.floe.map;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import dev.floe.reclaim.SafePointer;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The Oak map's algorithm (Oak paper, section 4), shared by the legacy and zero-copy APIs.
 *
 * <h2>Structure</h2>
 * A linked list of {@link Chunk}s in key order, starting at {@link #head} (minKey minus
 * infinity: no user-supplied sentinel); an index ({@link #index}, a skip list of the other
 * chunks' minKeys, each naming its chunk) that a {@link Rebalancer} updates after it changes the list, so a
 * lookup ({@link #locate}) takes the index's floor and walks forward (following
 * {@link Chunk#replacement} from a chunk that was replaced). Keys and values are Nova slices
 * ({@link KeySlices}, {@link ValueSlices}).
 *
 * <h2>Operations and their linearization points</h2>
 * <ul>
 *   <li><b>get</b>: locate, search the chunk, read the entry's value pointer, read the value
 *       (seqlock + Nova validation). Present: the first load of the stable lock word. Absent (no
 *       entry, no value, or a removed value): the load of the entry's value word, or the store of
 *       R if that store happened during the get.</li>
 *   <li><b>doPut</b> (put, putIfAbsent, putIfAbsentComputeIfPresent): present key: the value
 *       write under the value's lock (its unlock store). New key: the CAS that links the new entry,
 *       written with key and value beforehand, so key and value appear at once. Key with an empty
 *       or removed value: the CAS installing the new value pointer. Both CASes are published on
 *       the chunk, so a rebalance never copies a chunk in which they can still happen.</li>
 *   <li><b>doIfPresent</b> (computeIfPresent, remove, replace): the lock holder's unlock store
 *       (for remove: the store of R). The entry keeps the removed pointer until a put replaces
 *       it or a rebalance drops the entry: readers treat a removed value as no value.</li>
 * </ul>
 * A value that outgrows its slice moves: the writer, still holding the old slice's lock, installs
 * the new pointer in the entry (published; relocating the entry if a rebalance replaced the
 * chunk), then leaves M and a forward pointer in the old slice and retires it.
 */
final class InternalOakMap<K, V> {
    final Nova nova;
    final KeySlices<K> keys;
    final ValueSlices values;
    final OakSerializer<V> valueSerializer;
    /** The key order as a Comparator: one instance, so that every view's {@code comparator()} is equal. */
    final Comparator<K> keyOrder;
    /** The allocator this map created and closes, or null when it shares one. */
    final FloeAllocator ownAllocator;
    /** Whether removed keys and values are retired (false: a benchmark baseline that leaks). */
    final boolean reclaim;
    /**
     * Set for good once a removal could not be counted in its chunk (the comparator threw in
     * {@link #finalizeRemove}): from then on every rebalance checks every entry's value
     * ({@link Rebalancer}, "Which entries are checked"), so that entry is still dropped at its
     * chunk's next rebalance instead of keeping its key forever. Rebalances get slower (a cache
     * miss per entry), which only a failing comparator brings about.
     */
    volatile boolean uncountedRemovals;
    final int maxChunkEntries;

    /**
     * The index: every chunk's minKey except the first chunk's, each {@link KeyCopy} naming its
     * chunk ({@link KeyCopy#chunk}), so a lookup takes the floor key and reads the chunk from it
     * (no entry object per lookup).
     */
    final ConcurrentSkipListSet<Object> index;
    volatile Chunk head;
    final ReentrantLock rebalanceLock = new ReentrantLock();
    private final Rebalancer<K> rebalancer;
    private final LongAdder size = new LongAdder();
    /** Off-heap bytes of live key and value slices (blocks, including headers): the footprint estimate. */
    final LongAdder offHeapBytes = new LongAdder();
    volatile boolean closed;

    InternalOakMap(Nova nova, FloeAllocator ownAllocator, OakSerializer<K> keySerializer,
                   OakSerializer<V> valueSerializer, OakComparator<K> comparator, int maxChunkEntries,
                   int firstChunkEntries, boolean reclaim) {
        this.nova = nova;
        this.ownAllocator = ownAllocator;
        this.keys = new KeySlices<>(nova, keySerializer, comparator);
        this.values = new ValueSlices(nova);
        this.valueSerializer = valueSerializer;
        this.keyOrder = comparator::compareKeys;
        this.maxChunkEntries = maxChunkEntries;
        this.reclaim = reclaim;
        Comparator<Object> order = keys::compareProbes;
        this.index = new ConcurrentSkipListSet<>(order);
        this.head = new Chunk(null, firstChunkEntries, 0);
        this.rebalancer = new Rebalancer<>(this, firstChunkEntries);
    }

    /**
     * Throws once the map is closed. An opaque read, not a volatile one: it still sees a close
     * that happened before this call (happens-before) and, not being hoisted out of loops, a
     * concurrent close eventually (so retry loops end); a volatile read would add nothing a
     * racing close could rely on, and its barrier stops the JIT from keeping the region and
     * segment checks of a scan's off-heap reads in registers (one such check per scanned entry).
     */
    void checkOpen() {
        if ((boolean) CLOSED.getOpaque(this)) throw new IllegalStateException("the map is closed");
    }

    private static final java.lang.invoke.VarHandle CLOSED;

    static {
        try {
            CLOSED = java.lang.invoke.MethodHandles.lookup().findVarHandle(InternalOakMap.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Called before a search starts again because a key it compared with was retired (a
     * rebalance replaced the chunk): throws if the map is closed. The close of a map on a shared
     * allocator deletes every key and freezes every chunk without replacing it, so from then on
     * every comparison with a stored key answers RETRY: a search loop without this check would
     * spin forever (found by {@code ZeroCopyContractTest}, a close racing a computeIfPresent).
     * Only on the retry path, so a search that succeeds pays nothing; the opaque read sees the
     * close eventually (see {@link #checkOpen}).
     */
    void retryUnlessClosed() {
        checkOpen();
    }

    // ---- locating ------------------------------------------------------------------------------

    /** The chunk whose range holds {@code probe} (not replaced when it was looked at). */
    Chunk locate(Object probe) {
        Object k = index.floor(probe);
        return walkTo(k == null ? head : ((KeyCopy) k).chunk, probe, true);
    }

    /** The chunk holding the keys just below {@code minKey} (a chunk's minKey, not null). */
    Chunk chunkBefore(KeyCopy minKey) {
        Object k = index.lower(minKey);
        return walkTo(k == null ? head : ((KeyCopy) k).chunk, minKey, false);
    }

    /**
     * From {@code c} (at or before the answer), the chunk whose range holds {@code probe}
     * ({@code orAt}: a next chunk whose minKey equals it is taken) or the one just below it (such
     * a chunk is not taken), following replacements on the way.
     */
    private Chunk walkTo(Chunk c, Object probe, boolean orAt) {
        while (true) {
            c = latest(c);
            Chunk n = c.next;
            if (n == null) return c;
            boolean take = orAt
                    ? keys.compareProbes(probe, n.minKey) >= 0
                    : keys.compareProbes(n.minKey, probe) < 0;
            if (!take) return c;
            c = n;
        }
    }

    /** {@code c}, or the chunk that replaced it last (following replacements of replacements). */
    private static Chunk latest(Chunk c) {
        for (Chunk r; (r = c.replacement) != null; ) c = r;
        return c;
    }

    /** The first chunk (following replacements of the head). */
    Chunk firstChunk() {
        return latest(head);
    }

    /** The last chunk. */
    Chunk lastChunk() {
        java.util.Iterator<Object> top = index.descendingIterator();
        Chunk c = latest(top.hasNext() ? ((KeyCopy) top.next()).chunk : head);
        for (Chunk n; (n = c.next) != null; ) c = latest(n);
        return c;
    }

    /** Waits for the rebalance that froze a chunk this thread wanted to change. */
    void awaitRebalance() {
        rebalanceLock.lock();
        rebalanceLock.unlock();
    }

    void rebalance(Chunk c) {
        rebalancer.rebalance(c);
    }

    // ---- lookups -------------------------------------------------------------------------------

    /**
     * The value pointer in {@code probe}'s entry (maybe removed or moved), or 0 if it has none or
     * one marked removed ({@link Chunk#markRemoved}).
     */
    long lookup(Object probe) {
        while (true) {
            Chunk c = locate(probe);
            int r = c.search(keys, probe);
            if (r == Chunk.RETRY) {
                retryUnlessClosed();
                continue;
            }
            long v = r > 0 ? c.value(r) : 0;
            return Chunk.holdsValue(v) ? v : 0;
        }
    }

    /**
     * {@code zc().get}: a buffer over the value mapped to {@code probe}, holding a snapshot of it
     * (see {@link ValueSlices#snapshot}); null if there is none. Same result and linearization
     * point as {@link #lookup} followed by a snapshot, with one difference in order: the entry is
     * found by order prefixes alone (binary search of the sorted prefix, then along the bypass,
     * both on-heap), and the value's lock word is loaded before the key is read to confirm the
     * entry, so that the cache misses on the key slice and on the value slice overlap instead of
     * following one another. The entry's key is immutable, so confirming it afterwards is as good
     * as before; if it is another key (a prefix collision) or the snapshot fails, the full search
     * and read decide. No entry with the probe's prefix means no entry with its key.
     */
    ValueBuffer getBuffer(Object probe) {
        while (true) {
            Chunk c = locate(probe);
            long prefix = keys.prefixOfProbe(probe);
            int r = c.prefixSearch(prefix);
            if (r <= 0) r = c.prefixWalk(prefix, -r - 1);
            if (r > 0) {
                long v = c.value(r); // acquire: the slice was initialised before v was published
                long lw = Chunk.holdsValue(v) ? values.lockWordAcquire(v) : 0;
                int cmp = keys.compare(probe, c.key(r));
                if (cmp == KeySlices.RETRY) { // c was replaced and r's key retired
                    retryUnlessClosed();
                    continue;
                }
                if (cmp == 0 && ValueSlices.isPresent(lw) && values.stillLive(v)) return new ValueBuffer(this, v, lw);
                if (cmp != 0) r = c.search(keys, probe); // another key with the same prefix
            }
            if (r == Chunk.RETRY) {
                retryUnlessClosed();
                continue;
            }
            long p = r > 0 ? c.value(r) : 0;
            if (!Chunk.holdsValue(p)) return null; // none, or marked removed: absent when read
            long lw = values.snapshot(p);
            if (lw != 0) return new ValueBuffer(this, p, lw);
            p = liveValue(probe); // removed, moved or being written: the full path
            return p == 0 ? null : new ValueBuffer(this, p, 0);
        }
    }

    /**
     * Reads the value mapped to {@code probe} with {@code reader} (which may run more than once and
     * must have no side effects); {@code absent} if there is none.
     */
    Object read(Object probe, Function<MemorySegment, ?> reader, Object absent) {
        checkOpen();
        while (true) {
            long p = lookup(probe);
            if (p == 0) return absent;
            Object r = values.read(p, reader);
            if (r != ValueSlices.GONE) return r;
            long q = values.resolve(p);
            if (q != 0 && q != ValueSlices.LOST) {
                r = values.read(q, reader);
                if (r != ValueSlices.GONE) return r;
            }
            // Removed (or moved on): if the entry still names p, p was removed while it was the
            // entry's value (a move installs the new pointer before it marks the old slice), also
            // when p was retired and reused since (LOST).
            if ((q == 0 || q == ValueSlices.LOST) && lookup(probe) == p) return absent;
        }
    }

    /** The live value slice mapped to {@code probe} right now (following moves), or 0. */
    long liveValue(Object probe) {
        while (true) {
            long p = lookup(probe);
            if (p == 0) return 0;
            long q = values.resolve(p);
            if (q != ValueSlices.LOST) {
                if (q != 0 || lookup(probe) == p) return q;
            } else if (lookup(probe) == p) {
                return 0; // the entry still names a slice that was retired and reused: removed
            }
        }
    }

    /**
     * containsKey: whether {@code probe} has a present value. Like {@code liveValue(probe) != 0},
     * except that it waits while a writer holds the value for writing, as a get does: a poll
     * takes effect under L before its removal store ({@code MapView.poll}), and until this
     * (2026-11-23) a containsKey in that window still answered true for the polled key.
     * Linearization point of true: the load of the lock word without L, R or M.
     */
    boolean containsLive(Object probe) {
        while (true) {
            long p = liveValue(probe);
            if (p == 0) return false;
            if (values.presentAfterWriter(p)) return true; // else removed or moved meanwhile: look again
        }
    }

    V deserializeValue(MemorySegment view) {
        return valueSerializer.deserialize(view);
    }

    // ---- doPut ---------------------------------------------------------------------------------

    /** What doPut does when the key is present. */
    enum IfPresent { REPLACE, KEEP, COMPUTE }

    /**
     * Oak's doPut. Returns, for a present key: its previous value deserialized if
     * {@code wantOld} (REPLACE, KEEP), else {@link Boolean#FALSE} for KEEP and
     * {@link Boolean#TRUE} otherwise; for an absent key: null.
     */
    Object doPut(K key, V value, Consumer<OakWriteBuffer> compute, IfPresent mode, boolean wantOld) {
        checkOpen();
        long newValue = 0, newKey = 0;
        try {
            while (true) {
                checkOpen(); // a closed map freezes its chunks: retries must not spin forever
                Chunk c = locate(key);
                int r = searchForUpdate(c, key);
                if (r == Chunk.RETRY) continue;
                if (r > 0) {
                    long p = c.value(r);
                    if (Chunk.holdsValue(p)) { // case 1 if p is present
                        if (mode == IfPresent.KEEP && !wantOld) {
                            // waits while a writer holds the value, as containsLive does: a poll
                            // takes effect under L before its removal store, so a key it polled is
                            // absent from then on (until 2026-11-24 this read the lock word without
                            // waiting and answered "present" for it). False: removed (install ours)
                            // or moved (the entry no longer holds p, so the CAS below fails: retry).
                            if (values.presentAfterWriter(p)) return Boolean.FALSE;
                        } else {
                            // lock it: the lock itself tells whether it is present (null: removed)
                            Object done = updatePresent(key, p, value, compute, mode, wantOld);
                            if (done != null) return done == NONE ? null : done;
                        }
                    }
                    // case 2: no value, or a removed one (marked or not): install ours in the entry
                    if (newValue == 0) newValue = newValue(value);
                    if (!c.publish()) {
                        awaitRebalance();
                        continue;
                    }
                    boolean installed;
                    try {
                        installed = c.casValue(r, p, newValue);
                    } finally {
                        c.unpublish();
                    }
                    if (installed) {
                        newValue = 0;
                        size.increment();
                        return null;
                    }
                    continue;
                }
                if (newValue == 0) newValue = newValue(value);
                if (newKey == 0) newKey = newKey(key);
                // Case 3: link a new entry. User code (the comparator's prefix and comparisons)
                // runs unpublished; only the link's CAS is published (Chunk.link).
                long prefix = keys.prefixOfProbe(key);
                int e = c.allocateEntry();
                if (e == 0) {
                    rebalance(c); // full (or frozen and being replaced: this waits for it)
                    continue;
                }
                c.prepare(e, newKey, newValue, prefix);
                int linked = c.link(keys, key, e, -r - 1);
                if (linked == Chunk.FROZEN_RETRY) {
                    awaitRebalance();
                    continue;
                }
                if (linked == e) {
                    newKey = 0;
                    newValue = 0;
                    size.increment();
                    if (c.needsRebalance()) rebalance(c);
                    return null;
                }
                // another thread linked the key first (or the chunk was replaced): the entry stays
                // unlinked, our key and value stay private; look again
            }
        } finally {
            if (newValue != 0) freePrivate(newValue);
            if (newKey != 0) freePrivate(newKey);
        }
    }

    /**
     * {@link Chunk#search} for doPut, with {@link #getBuffer}'s order: the entry is found by order
     * prefixes alone (on-heap), and when one has the probe's prefix its value's lock word is loaded
     * before the key is read to confirm it, so that the miss on the value slice, which the update
     * takes next (under its hazard slot and lock, loading the word again), overlaps the miss on
     * the key slice. The early load's result is not needed: it is an acquire load, which the JIT
     * keeps. Same results as {@link Chunk#search}: an entry with another key of the same prefix
     * sends it to the full search; no entry with the prefix means the key is absent, and the last
     * entry with a smaller prefix is a predecessor {@link Chunk#link} can start from.
     */
    private int searchForUpdate(Chunk c, Object probe) {
        long prefix = keys.prefixOfProbe(probe);
        int r = c.prefixSearch(prefix);
        if (r <= 0) r = c.prefixWalk(prefix, -r - 1);
        if (r <= 0) return r;
        long v = c.value(r);
        if (Chunk.holdsValue(v)) values.lockWordAcquire(v);
        int cmp = keys.compare(probe, c.key(r));
        if (cmp == KeySlices.RETRY) return Chunk.RETRY;
        return cmp == 0 ? r : c.search(keys, probe);
    }

    /** Marker for "done, and the result is null" in {@link #updatePresent}. */
    private static final Object NONE = new Object();

    /** Case 1 of doPut under the value's lock; null if the value was removed first (retry). */
    private Object updatePresent(K key, long p, V value, Consumer<OakWriteBuffer> compute,
                                 IfPresent mode, boolean wantOld) {
        WriteScope s = new WriteScope(p);
        // a writer or a put without the old value writes at once; a legacy put reads the old value first
        long lw = lockFollowingMoves(s, mode == IfPresent.COMPUTE || (mode == IfPresent.REPLACE && !wantOld));
        if (lw == 0) return null;
        try {
            V old = null;
            if (wantOld) old = valueSerializer.deserialize(values.privateView(s.ptr, ValueSlices.length(lw)).asReadOnly());
            switch (mode) {
                case KEEP -> {
                    values.unlock(s, ValueSlices.length(lw));
                    return old == null ? NONE : old;
                }
                case REPLACE -> writeLocked(key, s, value, old);
                case COMPUTE -> runWriter(key, s, compute);
            }
            return wantOld ? (old == null ? NONE : old) : Boolean.TRUE;
        } catch (Throwable t) {
            releaseAfterFailure(s);
            throw t;
        }
    }

    /**
     * Claims the value (with the write lock if {@code write}; see {@link ValueSlices#lock}),
     * following moves; the lock word held, or 0 if removed.
     */
    long lockFollowingMoves(WriteScope s, boolean write) {
        long lw;
        while ((lw = values.lock(s, write)) == -1) { }
        return lw;
    }

    /**
     * Replaces the locked value with {@code value}: in place if it fits ({@link
     * ValueSlices#fitsInPlace}), else by a move. Unlocks. {@code previous} is the locked value
     * deserialized, or null if the caller does not have it (the zero-copy put): if the serializer
     * fails midway through an in-place write, the previous value is written back
     * ({@link #unlockRestoring}).
     */
    void writeLocked(Object probe, WriteScope s, V value, V previous) {
        int size;
        try {
            size = valueSerializer.sizeOf(value);
            values.checkSize(size);
        } catch (Throwable e) {
            values.unlock(s, ValueSlices.length(s.lockWord));
            throw e;
        }
        if (values.fitsInPlace(s.ptr, size)) {
            values.beginWrite(s);
            try {
                valueSerializer.serialize(value, values.privateView(s.ptr, size));
            } catch (Throwable e) {
                unlockRestoring(s, previous, e); // the serializer failed mid-write
                throw e;
            }
            values.unlock(s, size);
            return;
        }
        long q;
        try {
            q = newValue(value);
        } catch (Throwable e) {
            values.unlock(s, ValueSlices.length(s.lockWord));
            throw e;
        }
        move(probe, s, q);
    }

    /**
     * Unlocks a value whose in-place rewrite failed: the serializer may have written part of the
     * new bytes before it threw. If the caller has the {@code previous} value (every update of the
     * legacy API deserializes it first), its serialization overwrites them, so that the failed
     * update leaves the mapping as it was: the same bytes for a codec whose {@code serialize}
     * inverts its {@code deserialize}, else bytes that deserialize to an equal value. Readers never
     * see the partial bytes: the value stays locked until the unlock below, which ends every
     * optimistic read that overlapped the write (seqlock). Without a previous value, or if writing
     * it back fails too (added to {@code failure} as suppressed), the bytes written stay, with the
     * old length.
     */
    private void unlockRestoring(WriteScope s, V previous, Throwable failure) {
        int length = ValueSlices.length(s.lockWord);
        if (previous != null) {
            try {
                int size = valueSerializer.sizeOf(previous);
                if (size >= 0 && size <= values.capacity(s.ptr)) {
                    valueSerializer.serialize(previous, values.privateView(s.ptr, size));
                    length = size;
                }
            } catch (Throwable again) {
                failure.addSuppressed(again);
            }
        }
        values.unlock(s, length);
    }

    /** Runs a zero-copy writer exactly once on the locked value, then publishes (unlock or move). */
    void runWriter(Object probe, WriteScope s, Consumer<OakWriteBuffer> writer) {
        values.beginWrite(s); // it writes in place from its first step
        OakWriteBuffer buffer = new OakWriteBuffer(this, s);
        try {
            writer.accept(buffer);
        } catch (Throwable e) {
            buffer.abandon(); // drops a resized copy, undoes the writes made in place, unlocks
            throw e;
        }
        buffer.finish(probe);
    }

    /**
     * Makes the private slice {@code q} the key's value in place of the locked {@code s.ptr}:
     * installs it in the entry (published; finding the entry again if a rebalance replaced its
     * chunk: the locked value keeps its entry, rebalances copy it as is), then marks the old slice
     * moved and retires it. If that fails (the map closed meanwhile, or the comparator threw while
     * the entry was looked up), {@code q} was never installed, so nothing else can free it: it is
     * freed here (unless the map's own allocator went with the map) before the exception
     * propagates, and the caller unlocks the old value, unchanged.
     */
    void move(Object probe, WriteScope s, long q) {
        values.beginWrite(s); // readers of the old slice wait from here until M sends them on
        try {
            while (true) {
                checkOpen();
                Chunk c = locate(probe);
                int r = c.search(keys, probe);
                if (r == Chunk.RETRY) continue;
                if (r <= 0 || c.value(r) != s.ptr) {
                    throw new IllegalStateException("internal: a locked value lost its entry");
                }
                if (!c.publish()) {
                    awaitRebalance();
                    continue;
                }
                boolean installed;
                try {
                    installed = c.casValue(r, s.ptr, q);
                } finally {
                    c.unpublish();
                }
                if (installed) break;
            }
        } catch (Throwable t) {
            if (ownAllocator == null || !closed) freePrivate(q);
            throw t;
        }
        offHeapBytes.add(-footprint(s.ptr));
        values.movedLocked(s, q, reclaim);
    }

    // ---- doIfPresent ---------------------------------------------------------------------------

    /** What a locked action does with the value; see {@link #doIfPresent}. */
    interface LockedAction<R> {
        /**
         * Runs under the value's claim (without L: {@code writeLocked}, {@code runWriter} and
         * {@code move} set it before they write); must end with exactly one of unlock, remove,
         * write, move.
         */
        R apply(WriteScope scope, long lockWord);
    }

    /**
     * Runs {@code action} under the lock of {@code probe}'s value; {@code absent} if there is none.
     * If the action throws, the value is unlocked (if it still is) and the exception propagates.
     */
    <R> R doIfPresent(Object probe, LockedAction<R> action, R absent) {
        while (true) {
            checkOpen();
            long p = liveValue(probe);
            if (p == 0) return absent;
            WriteScope s = new WriteScope(p);
            long lw = lockFollowingMoves(s, false); // the action writes through writeLocked, runWriter or move
            if (lw == 0) continue; // removed meanwhile: maybe re-inserted, look again
            try {
                return action.apply(s, lw);
            } catch (Throwable t) {
                releaseAfterFailure(s);
                throw t;
            }
        }
    }

    /**
     * Unlocks a value whose locked action failed before it released the value (user code threw:
     * a function, a serializer, an equals, also an Error), unchanged in length; a value already
     * released is left alone. Without this the value would stay locked and every later writer
     * and reader of its key would wait forever.
     */
    private void releaseAfterFailure(WriteScope s) {
        if (s.held) values.unlock(s, ValueSlices.length(s.lockWord));
    }

    /** Removes the locked value (linearization point: the R store), then counts the removal in its chunk. */
    void removeLocked(Object probe, WriteScope s) {
        long p = s.ptr;
        offHeapBytes.add(-footprint(p));
        values.removeLocked(s, reclaim);
        size.decrement();
        finalizeRemove(probe, p);
    }

    /**
     * Oak's finalizeRemove, reduced to bookkeeping: the entry keeps the removed pointer, marked
     * removed ({@link Chunk#markRemoved}; readers treat a removed value, marked or not, as no
     * value, and the next put replaces the word with a CAS), so an entry's value word never
     * returns to an earlier value, which the linearizable navigation relies on
     * ({@link Cursor#sameAs}). The mark lets scans, lookups and rebalances skip the entry without
     * loading the slice off-heap. It counts the removal in the chunk that holds the entry, whose
     * rebalance then drops the entry and retires its key.
     *
     * <p>A rebalance checks the values of a chunk's entries only if the chunk counted a removal
     * (read after the freeze; see {@link Rebalancer}), so the count must reach the chunk that
     * holds the entry when this returns. The count is a volatile write followed by a volatile read
     * of the chunk's state, and the rebalance freezes the chunk (volatile read-modify-write)
     * before it reads the count: by the total order of volatile accesses, either the rebalance
     * sees the count, or this thread sees the chunk frozen and counts again in the chunk that
     * replaced it (if its entry was copied there with the removed value; a rebalance that
     * checked the value dropped the entry instead). The mark is stored after this thread saw the
     * chunk not frozen, so a rebalance that may copy the marked word froze the chunk after that
     * read and sees the count: it checks the entry and drops it (marked or not, the value is
     * removed).
     *
     * <p>If the comparator throws while the entry is looked up here, the removal cannot be counted
     * in its chunk: {@link #uncountedRemovals} is set instead, and the exception propagates (the
     * remove has taken effect, as with a rebalance that fails after an update).
     */
    private void finalizeRemove(Object probe, long removed) {
        while (true) {
            if (closed) return; // close froze every chunk: nothing left to count
            Chunk c;
            int r;
            try {
                c = locate(probe);
                r = c.search(keys, probe);
            } catch (Throwable e) { // the user's comparator: the entry cannot be found to count it
                uncountedRemovals = true;
                throw e;
            }
            if (r == Chunk.RETRY) continue;
            if (r > 0 && c.value(r) == removed) {
                c.removals++; // racing increments may lose one, never both: still non-zero
                if (c.isFrozen()) { // a rebalance may have read the count before it: count again where the entry went
                    awaitRebalance();
                    continue;
                }
                c.markRemoved(r, removed);
                if (c.needsRebalance()) rebalance(c);
            }
            return;
        }
    }

    // ---- slices --------------------------------------------------------------------------------

    long newValue(V value) {
        int size = valueSerializer.sizeOf(value);
        long p = values.allocate(size);
        try {
            valueSerializer.serialize(value, values.privateView(p, size));
        } catch (Throwable e) {
            nova.deletePrivate(p);
            throw e;
        }
        offHeapBytes.add(footprint(p));
        return p;
    }

    long newKey(K key) {
        long p = keys.allocate(key);
        offHeapBytes.add(footprint(p));
        return p;
    }

    void freePrivate(long ptr) {
        offHeapBytes.add(-footprint(ptr));
        nova.deletePrivate(ptr);
    }

    /**
     * Block bytes of a slice this map owns (for the footprint estimate), read before the map
     * deletes it, while it owns, locks or retires it (so an out-of-line key's or value's run is
     * still allocated): the slice's block, and the run with the run word when out of line. The
     * map's own pointer: its header is read without the geometry lookup
     * ({@link Nova#beginReadOwned}).
     */
    long footprint(long ptr) {
        long st = nova.beginReadOwned(ptr);
        if (st == 0) return 0;
        long block = Nova.stampLength(st) + nova.headerBytes();
        return Nova.hasRun(st) ? block + runFootprint(ptr, st) : block;
    }

    /** The run word and the run of an out-of-line key or value (a method of its own: keeps footprint small). */
    private long runFootprint(long ptr, long stamp) {
        return 8 + nova.allocator().usableSize(nova.runOf(ptr, stamp));
    }

    /** Retires a key dropped by a rebalance. */
    void retireKey(long keyPtr) {
        offHeapBytes.add(-footprint(keyPtr));
        if (reclaim) nova.delete(keyPtr);
    }

    long size() {
        return Math.max(0, size.sum());
    }

    /** Releases every key and value of the map (close). Callers must have set {@link #closed}. */
    void releaseAll() {
        rebalanceLock.lock();
        try {
            if (ownAllocator != null) {
                ownAllocator.close(); // unmaps everything at once
                return;
            }
            for (Chunk c = firstChunk(); c != null; c = c.next) {
                c.freeze();
                for (int e = c.next(0); e != 0; e = c.next(e)) {
                    long v = c.value(e);
                    // a marked word's slice was deleted by its remove, unless reclamation is off
                    if (v != 0) nova.delete(SafePointer.clearDeleted(v));
                    nova.delete(c.key(e));
                }
            }
            offHeapBytes.reset();
        } finally {
            rebalanceLock.unlock();
        }
    }
}
