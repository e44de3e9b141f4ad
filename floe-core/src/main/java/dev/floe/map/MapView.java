package dev.floe.map;

import java.lang.ref.Reference;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The legacy {@link ConcurrentNavigableMap} API over a key range of an Oak map, in either order:
 * the whole map ({@link OakMap} itself), and every subMap / headMap / tailMap / descendingMap
 * view, which are live and weakly consistent like ConcurrentSkipListMap's. Keys and values are
 * deserialized on the way out (use {@link OakMap#zc()} to avoid the copies). Entries returned are
 * snapshots that do not support {@code setValue}, as in ConcurrentSkipListMap. The key, entry and
 * value views' spliterators report what ConcurrentSkipListMap's do (CONCURRENT, ORDERED, NONNULL;
 * keys and entries also DISTINCT and SORTED by {@link #comparator()}), never SIZED; their
 * {@code removeIf} on values and entries removes a key only if it still maps to the value tested.
 *
 * <p>Atomicity: {@code compute}, {@code computeIfPresent}, {@code merge}, {@code replace} and the
 * conditional {@code remove} run under the value's lock, so their function sees the current value
 * and no other update interleaves; the functions must not update the same key of this map: such
 * a call would wait for the function's own thread, so it throws {@link IllegalStateException}
 * instead (after a wait of a few microseconds), which fails the outer update and leaves the value
 * as it was. While a function runs, the lock is a claim that readers pass
 * ({@link ValueSlices}, C): reads of the key, in the function's thread or any other (a get, a
 * scan over it, a parallel stream the function joins), see the value as it was before the
 * update, as in ConcurrentSkipListMap; they wait only while the new value's bytes are written.
 * On an absent key, {@code compute},
 * {@code computeIfAbsent} and {@code merge} insert with putIfAbsent and retry if another insert
 * wins, so the function may run more than once, as ConcurrentMap allows. Whatever user code throws under the lock (a function,
 * a serializer, an {@code equals}, also an Error) propagates and releases the lock.
 *
 * <p>A put (replace, compute, merge, replaceAll) of a present key writes the new value into the
 * old one's memory when it fits. If the value serializer throws midway, the update writes the
 * previous value, which it deserialized first, back before it unlocks, so the mapping stays as
 * it was, as in ConcurrentSkipListMap (the same bytes for a codec whose serialize inverts its
 * deserialize; if that write fails too, its exception is suppressed in the first, and the bytes
 * written stay).
 *
 * <p>One consequence of storing keys off-heap differs from ConcurrentSkipListMap: keys that
 * compare equal are one key: a put after a remove may keep the removed mapping's key (its
 * serialized bytes) until a rebalance drops that entry, where the skip list stores the new key
 * object; this shows only with a comparator that calls keys with different bytes equal
 * ({@link OakComparator}).
 */
class MapView<K, V> extends AbstractMap<K, V> implements ConcurrentNavigableMap<K, V> {
    final OakMap<K, V> root;
    final InternalOakMap<K, V> core;
    final KeyRange range;

    MapView(OakMap<K, V> root, InternalOakMap<K, V> core, KeyRange range) {
        this.root = root == null ? (OakMap<K, V>) this : root;
        this.core = core;
        this.range = range;
    }

    final boolean isRoot() {
        return range == KeyRange.ALL;
    }

    /**
     * Whether {@code key} lies in this view's range. A key outside it first checks that the map is
     * open, so that a closed map refuses every use of a view made before the close, also with a
     * key outside the view (a key inside reaches the operation's own check).
     */
    final boolean inRange(Object key) {
        if (isRoot() || range.contains(core.keys, key)) return true;
        core.checkOpen();
        return false;
    }

    @SuppressWarnings("unchecked")
    final K checkKey(Object key) {
        Objects.requireNonNull(key, "null keys are not allowed");
        return (K) key;
    }

    final K checkPutKey(K key) {
        checkKey(key);
        if (!inRange(key)) throw new IllegalArgumentException("key out of range");
        return key;
    }

    // ---- queries -------------------------------------------------------------------------------

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        try {
            checkKey(key);
            if (!inRange(key)) return null;
            return (V) core.read(key, core::deserializeValue, null);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean containsKey(Object key) {
        try {
            checkKey(key);
            if (!inRange(key)) return false;
            core.checkOpen();
            return core.containsLive(key);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "null values are not allowed");
        for (V v : values()) if (value.equals(v)) return true;
        return false;
    }

    @Override
    public int size() {
        try {
            core.checkOpen();
            long n;
            if (isRoot()) {
                n = core.size();
            } else {
                n = 0;
                Cursor c = new Cursor(core, range.ascending());
                while (c.advance()) n++;
            }
            return (int) Math.min(Integer.MAX_VALUE, n);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean isEmpty() {
        try {
            return Cursor.confirmedFirst(core, range) == null;
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    // ---- updates -------------------------------------------------------------------------------

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            return (V) core.doPut(key, value, null, InternalOakMap.IfPresent.REPLACE, true);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public V putIfAbsent(K key, V value) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            return (V) core.doPut(key, value, null, InternalOakMap.IfPresent.KEEP, true);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V remove(Object key) {
        try {
            checkKey(key);
            if (!inRange(key)) return null;
            return core.doIfPresent(key, (s, lw) -> {
                V old = deserializeLocked(s, lw);
                core.removeLocked(key, s);
                return old;
            }, null);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean remove(Object key, Object value) {
        try {
            checkKey(key);
            if (!inRange(key)) return false; // first: a sub-view compares the key (ClassCastException), as the skip list's
            if (value == null) {
                core.checkOpen();
                return false;
            }
            return core.doIfPresent(key, (s, lw) -> {
                if (!value.equals(deserializeLocked(s, lw))) {
                    core.values.unlock(s, ValueSlices.length(lw));
                    return false;
                }
                core.removeLocked(key, s);
                return true;
            }, false);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(oldValue, "null values are not allowed");
            Objects.requireNonNull(newValue, "null values are not allowed");
            return core.doIfPresent(key, (s, lw) -> {
                V current = deserializeLocked(s, lw);
                if (!oldValue.equals(current)) {
                    core.values.unlock(s, ValueSlices.length(lw));
                    return false;
                }
                core.writeLocked(key, s, newValue, current);
                return true;
            }, false);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V replace(K key, V value) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            return core.doIfPresent(key, (s, lw) -> {
                V old = deserializeLocked(s, lw);
                core.writeLocked(key, s, value, old);
                return old;
            }, null);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        try {
            checkKey(key);
            Objects.requireNonNull(fn);
            if (!inRange(key)) return null;
            return core.doIfPresent(key, (s, lw) -> applyLocked(key, s, lw, fn), null);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> fn) {
        try {
            checkKey(key);
            Objects.requireNonNull(fn);
            if (!inRange(key)) return outOfRange(key, fn.apply(key, null));
            while (true) {
                Object r = core.doIfPresent(key, (s, lw) -> applyLocked(key, s, lw, fn), ABSENT);
                if (r != ABSENT) return cast(r);
                V created = fn.apply(key, null);
                if (created == null) return null;
                if (core.doPut(key, created, null, InternalOakMap.IfPresent.KEEP, false) == null) return created;
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> fn) {
        try {
            checkKey(key);
            Objects.requireNonNull(fn);
            if (!inRange(key)) return outOfRange(key, fn.apply(key));
            while (true) {
                V present = get(key);
                if (present != null) return present;
                V created = fn.apply(key);
                if (created == null) return null;
                if (core.doPut(key, created, null, InternalOakMap.IfPresent.KEEP, false) == null) return created;
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> fn) {
        try {
            // nulls first, then the range: ConcurrentMap.merge's order, which ConcurrentSkipListMap's views follow
            Objects.requireNonNull(value, "null values are not allowed");
            Objects.requireNonNull(fn);
            checkPutKey(key);
            while (true) {
                Object r = core.doIfPresent(key, (s, lw) -> applyLocked(key, s, lw, (k, old) -> fn.apply(old, value)), ABSENT);
                if (r != ABSENT) return cast(r);
                if (core.doPut(key, value, null, InternalOakMap.IfPresent.KEEP, false) == null) return value;
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /**
     * Replaces each value of this view by {@code fn}'s result, calling it in this view's order
     * (descending on a descending view), as ConcurrentSkipListMap's views do (entry-set order):
     * that order shows to a function with side effects, and in which values a function that
     * throws has already replaced.
     */
    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> fn) {
        try {
            Objects.requireNonNull(fn);
            core.checkOpen();
            Cursor c = new Cursor(core, range);
            while (c.advance()) {
                K key = core.keys.deserialize(c.keyPtr);
                if (key == null) continue;
                core.doIfPresent(key, (s, lw) -> {
                    V old = deserializeLocked(s, lw);
                    V nv = fn.apply(key, old); // under the claim, as in applyLocked
                    if (nv == null) {
                        core.values.unlock(s, ValueSlices.length(lw));
                        throw new NullPointerException("replaceAll function returned null");
                    }
                    core.writeLocked(key, s, nv, old);
                    return null;
                }, null);
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public void clear() {
        try {
            core.checkOpen();
            Cursor c = new Cursor(core, range.ascending());
            while (c.advance()) {
                K key = core.keys.deserialize(c.keyPtr);
                if (key != null) remove(key);
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /**
     * A remapping on a key outside this view (ConcurrentSkipListMap's behaviour): the function saw
     * no value; a null result changes nothing, anything else could not be stored.
     */
    private V outOfRange(K key, V result) {
        if (result != null) throw new IllegalArgumentException("key out of range");
        return null;
    }

    private static final Object ABSENT = new Object();

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

    /** The locked value, deserialized (unlocks and rethrows if the deserializer fails). */
    final V deserializeLocked(WriteScope s, long lw) {
        try {
            return core.valueSerializer.deserialize(core.values.privateView(s.ptr, ValueSlices.length(lw)).asReadOnly());
        } catch (Throwable e) {
            core.values.unlock(s, ValueSlices.length(lw));
            throw e;
        }
    }

    /** Remaps a locked value: null removes it, else it is replaced; returns the new value. */
    private V applyLocked(K key, WriteScope s, long lw, BiFunction<? super K, ? super V, ? extends V> fn) {
        V old = deserializeLocked(s, lw);
        V nv;
        try {
            nv = fn.apply(key, old); // under the claim: readers, this thread's too, see the old value meanwhile
        } catch (Throwable e) {
            core.values.unlock(s, ValueSlices.length(lw));
            throw e;
        }
        if (nv == null) {
            core.removeLocked(key, s);
            return null;
        }
        core.writeLocked(key, s, nv, old);
        return nv;
    }

    // ---- navigation ----------------------------------------------------------------------------

    /**
     * The first present entry of {@code r} in its order, as a snapshot; null if none.
     * Linearizable: a second traced cursor confirms that nothing on the way changed while the
     * entry was read ({@link Cursor#sameAs}); otherwise it looks again. This is
     * {@link Cursor#confirmedFirst} with the value read between the two scans, which is why it
     * runs its own loop: a value read after the confirmation could be newer than the moment at
     * which the entry was first.
     */
    final Map.Entry<K, V> first(KeyRange r) {
        try {
            while (true) {
                core.checkOpen();
                Cursor c = new Cursor(core, r, true);
                Map.Entry<K, V> e = null;
                if (c.advance()) {
                    e = snapshot(c);
                    if (e == null) continue; // vanished between the look and the read
                }
                Cursor check = new Cursor(core, r, true);
                check.advance();
                if (c.sameAs(check)) return e;
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /** The cursor's current entry deserialized, or null if it vanished meanwhile. */
    @SuppressWarnings("unchecked")
    final Map.Entry<K, V> snapshot(Cursor c) {
        K key = core.keys.deserialize(c.keyPtr);
        if (key == null) return null;
        Object v = core.values.read(c.valuePtr, core::deserializeValue);
        if (v == ValueSlices.GONE) {
            v = core.read(key, core::deserializeValue, null);
            if (v == null) return null;
        }
        return new AbstractMap.SimpleImmutableEntry<>(key, (V) v);
    }

    /**
     * The entry nearest {@code key} in this view's order: the first at or after it ({@code after})
     * or at or before it, {@code key} itself included or not. In key order that is the first entry
     * of the range raised ({@link KeyRange#from}, ascending) or lowered ({@link KeyRange#to},
     * descending) to {@code key}.
     */
    private Map.Entry<K, V> nearest(Object key, boolean after, boolean inclusive) {
        K k = checkKey(key);
        return after != range.descending()
                ? first(range.from(core.keys, k, inclusive))
                : first(range.to(core.keys, k, inclusive));
    }

    @Override
    public Map.Entry<K, V> ceilingEntry(K key) {
        return nearest(key, true, true);
    }

    @Override
    public Map.Entry<K, V> higherEntry(K key) {
        return nearest(key, true, false);
    }

    @Override
    public Map.Entry<K, V> floorEntry(K key) {
        return nearest(key, false, true);
    }

    @Override
    public Map.Entry<K, V> lowerEntry(K key) {
        return nearest(key, false, false);
    }

    @Override
    public K ceilingKey(K key) {
        return keyOf(ceilingEntry(key));
    }

    @Override
    public K higherKey(K key) {
        return keyOf(higherEntry(key));
    }

    @Override
    public K floorKey(K key) {
        return keyOf(floorEntry(key));
    }

    @Override
    public K lowerKey(K key) {
        return keyOf(lowerEntry(key));
    }

    @Override
    public Map.Entry<K, V> firstEntry() {
        return first(range);
    }

    @Override
    public Map.Entry<K, V> lastEntry() {
        return first(range.reversed());
    }

    @Override
    public K firstKey() {
        return keyOrThrow(firstEntry());
    }

    @Override
    public K lastKey() {
        return keyOrThrow(lastEntry());
    }

    @Override
    public Map.Entry<K, V> pollFirstEntry() {
        return poll(range);
    }

    @Override
    public Map.Entry<K, V> pollLastEntry() {
        return poll(range.reversed());
    }

    /**
     * Removes and returns the first entry of {@code r}. Linearizable: the entry found first is
     * locked for writing (not only claimed: readers must not pass it), and only then confirmed
     * still the first present entry of the range ({@link Cursor#confirmedFirst}); if it is not (an
     * insert put a key before it, or another thread removed it), the poll unlocks it unchanged and
     * starts again. The poll takes effect at that confirmation: from then until its removal the
     * value stays locked, and a reader of it waits for the lock (so sees it removed), as every
     * update of it does. (With the claim alone a get after the confirmation still returned the
     * value the poll then returned too: Lincheck, 2026-11-23.) {@code containsKey} waits for it
     * too ({@link InternalOakMap#containsLive}; it answered true in that window until 2026-11-23).
     *
     * <p>Until the confirmation, a poll that had found {@code k} first locked it later and
     * removed it even when a smaller key had come in meanwhile ({@code PollRaceTest}; Lincheck
     * caught it once in CI).
     */
    private Map.Entry<K, V> poll(KeyRange r) {
        try {
            while (true) {
                Map.Entry<K, V> e = first(r);
                if (e == null) return null;
                K key = e.getKey();
                Object old = core.doIfPresent(key, (s, lw) -> {
                    V v = deserializeLocked(s, lw); // before the check: its window stays short
                    core.values.beginWrite(s); // readers wait from before the confirmation on
                    Cursor first = Cursor.confirmedFirst(core, r); // cannot wait for this thread's lock
                    if (first == null || first.valuePtr != s.ptr) {
                        core.values.unlock(s, ValueSlices.length(lw));
                        return NOT_FIRST;
                    }
                    core.removeLocked(key, s);
                    return v;
                }, null);
                if (old != null && old != NOT_FIRST) {
                    @SuppressWarnings("unchecked") V v = (V) old;
                    return new AbstractMap.SimpleImmutableEntry<>(key, v);
                }
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /** {@link #poll}'s "the entry it locked is no longer the first": unlocked, look again. */
    private static final Object NOT_FIRST = new Object();

    /** The entry's key, or null for no entry. */
    static <K> K keyOf(Map.Entry<K, ?> e) {
        return e == null ? null : e.getKey();
    }

    /** The entry's key; no entry (an empty view) throws, as {@code firstKey}/{@code lastKey} must. */
    private static <K> K keyOrThrow(Map.Entry<K, ?> e) {
        if (e == null) throw new java.util.NoSuchElementException();
        return e.getKey();
    }

    /**
     * The map's key order ({@link OakComparator#compareKeys}), reversed on a descending view. As in
     * ConcurrentSkipListMap, views of the same direction return equal comparators.
     */
    @Override
    public Comparator<? super K> comparator() {
        core.checkOpen();
        Comparator<K> c = core.keyOrder;
        return range.descending() ? Collections.reverseOrder(c) : c;
    }

    /** As AbstractMap's, except that a closed map throws even when compared with itself. */
    @Override
    public boolean equals(Object o) {
        core.checkOpen();
        return super.equals(o);
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    // ---- views ---------------------------------------------------------------------------------

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        core.checkOpen();
        checkKey(fromKey);
        checkKey(toKey);
        return new MapView<>(root, core, range.sub(core.keys, fromKey, fromInclusive, toKey, toInclusive));
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        core.checkOpen();
        checkKey(toKey);
        return new MapView<>(root, core, range.sub(core.keys, null, false, toKey, inclusive));
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        core.checkOpen();
        checkKey(fromKey);
        return new MapView<>(root, core, range.sub(core.keys, fromKey, inclusive, null, false));
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, K toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey) {
        return headMap(toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey) {
        return tailMap(fromKey, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> descendingMap() {
        core.checkOpen();
        return new MapView<>(root, core, range.reversed());
    }

    /*
     * The key, entry and value views of this view, made on first use and kept, as the skip list
     * keeps its own: values() then equals itself (AbstractCollection compares identity) and a
     * caller that asks again gets the same object. Racing first calls may make two; both work.
     */
    private KeySetView<K> keySet;
    private EntrySetView<K, V> entrySet;
    private ValuesView<K, V> values;

    @Override
    public NavigableSet<K> navigableKeySet() {
        core.checkOpen();
        KeySetView<K> v = keySet;
        return v != null ? v : (keySet = new KeySetView<>(this));
    }

    @Override
    public NavigableSet<K> keySet() {
        return navigableKeySet();
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        core.checkOpen();
        return new KeySetView<>(new MapView<>(root, core, range.reversed()));
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        core.checkOpen();
        EntrySetView<K, V> v = entrySet;
        return v != null ? v : (entrySet = new EntrySetView<>(this));
    }

    @Override
    public java.util.Collection<V> values() {
        core.checkOpen();
        ValuesView<K, V> v = values;
        return v != null ? v : (values = new ValuesView<>(this));
    }

    /** {@inheritDoc} A closed map throws {@link IllegalStateException}, also for an empty {@code m}. */
    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        core.checkOpen();
        super.putAll(m);
    }
}
