package dev.floe.map;

import java.lang.ref.Reference;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.function.Consumer;

/**
 * The zero-copy API of an {@link OakMap} (the Oak paper's ZeroCopyConcurrentNavigableMap, its
 * Table 1), over the map or one of its key ranges. Reads return {@link OakReadBuffer}s over the
 * off-heap bytes instead of deserialized objects; updates return no old value; two computes
 * update a value in place, atomically and exactly once.
 *
 * <p>Scans: {@link #keySet()}, {@link #values()} and {@link #entrySet()} hand out a new buffer per
 * element; the stream variants ({@link #keyStreamSet()}, {@link #valueStreamSet()},
 * {@link #entryStreamSet()}) re-point one buffer per iterator at each element, so a scan creates
 * no garbage per entry (the buffer, and the entry for entry streams, must not be kept past the
 * next call to {@code next()}). Iterators are weakly consistent; {@code remove} removes the last
 * key returned. {@link #subMap}, {@link #headMap}, {@link #tailMap} and {@link #descendingMap}
 * give views over sub-ranges and in reverse order.
 */
public final class ZeroCopyMap<K, V> {
    private final OakMap<K, V> root;
    private final InternalOakMap<K, V> core;
    private final KeyRange range;

    ZeroCopyMap(OakMap<K, V> root, InternalOakMap<K, V> core, KeyRange range) {
        this.root = root;
        this.core = core;
        this.range = range;
    }

    /** Whether {@code key} lies in this view's range; one outside it checks the map is open (see {@link MapView#inRange}). */
    private boolean inRange(Object key) {
        if (range == KeyRange.ALL || range.contains(core.keys, key)) return true;
        core.checkOpen();
        return false;
    }

    /**
     * The key {@code o} holds if it is a buffer other than a value buffer, deserialized with this
     * map's key serializer; null if it is not such a buffer or its key was removed meanwhile
     * ({@link RemovedValueException}).
     */
    private K keyIn(Object o) {
        if (!(o instanceof OakReadBuffer b) || o instanceof ValueBuffer) return null; // a value is no key
        try {
            return b.transform(core.keys.serializer::deserialize);
        } catch (RemovedValueException gone) {
            return null;
        }
    }

    /** Whether this view maps the key buffer {@code o} holds ({@link #keySet()}'s membership). */
    private boolean containsKeyIn(Object o) {
        try {
            K key = keyIn(o);
            if (key == null || !inRange(key)) return false;
            core.checkOpen();
            return core.containsLive(key);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /** Removes the key buffer {@code o} holds from this view ({@link #keySet()}'s membership). */
    private boolean removeKeyIn(Object o) {
        K key = keyIn(o);
        return key != null && remove(key);
    }

    private K checkPutKey(K key) {
        Objects.requireNonNull(key, "null keys are not allowed");
        if (!inRange(key)) throw new IllegalArgumentException("key out of range");
        return key;
    }

    /** A buffer over the value mapped to {@code key}, or null if there is none. */
    public OakReadBuffer get(K key) {
        try {
            Objects.requireNonNull(key, "null keys are not allowed");
            if (!inRange(key)) return null;
            core.checkOpen();
            // the buffer holds the snapshot (the linearization point when present), so its first read
            // continues from it instead of reading the lock word afresh
            return core.getBuffer(key);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /**
     * Maps {@code key} to {@code value}: in place when the new value fits the old one's block
     * (and, for a value above about 16 KiB, fills at least a quarter of it), else in a new block.
     * If the value serializer throws while writing in place, the bytes it wrote stay: this put
     * returns no old value, so it has none to write back, unlike the legacy API's updates
     * ({@link OakSerializer#serialize}); saving the old bytes first would make every put wait for
     * the value's cache lines (a quarter of a 1 KB put). A zero-copy writer's writes are undone.
     */
    public void put(K key, V value) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            core.doPut(key, value, null, InternalOakMap.IfPresent.REPLACE, false);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /** Maps {@code key} to {@code value} unless it is present; true if it inserted. */
    public boolean putIfAbsent(K key, V value) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            return core.doPut(key, value, null, InternalOakMap.IfPresent.KEEP, false) == null;
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /** Removes {@code key}; true if it was present. */
    public boolean remove(K key) {
        try {
            Objects.requireNonNull(key, "null keys are not allowed");
            if (!inRange(key)) return false;
            return removeProbe(core, key);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    static boolean removeProbe(InternalOakMap<?, ?> core, Object probe) {
        return core.doIfPresent(probe, (s, lw) -> {
            core.removeLocked(probe, s);
            return Boolean.TRUE;
        }, Boolean.FALSE);
    }

    /**
     * Runs {@code writer} on the value of {@code key} in place, atomically and exactly once, if the
     * key is present; true if it ran. The writer may resize the value ({@link OakWriteBuffer}). If
     * it throws, the exception propagates and the value stays as it was (its writes are undone).
     */
    public boolean computeIfPresent(K key, Consumer<OakWriteBuffer> writer) {
        try {
            Objects.requireNonNull(key, "null keys are not allowed");
            Objects.requireNonNull(writer, "writer");
            if (!inRange(key)) return false;
            return core.doIfPresent(key, (s, lw) -> {
                core.runWriter(key, s, writer);
                return Boolean.TRUE;
            }, Boolean.FALSE);
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    /**
     * Inserts {@code value} if {@code key} is absent, else runs {@code writer} on the present value
     * in place, atomically and exactly once (Oak's putIfAbsentComputeIfPresent). Returns true if it
     * inserted, false if it computed. If the writer throws, the exception propagates and the value
     * stays as it was (its writes are undone).
     */
    public boolean putIfAbsentComputeIfPresent(K key, V value, Consumer<OakWriteBuffer> writer) {
        try {
            checkPutKey(key);
            Objects.requireNonNull(value, "null values are not allowed");
            Objects.requireNonNull(writer, "writer");
            return core.doPut(key, value, writer, InternalOakMap.IfPresent.COMPUTE, false) == null;
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    // ---- views ---------------------------------------------------------------------------------

    /**
     * A live zero-copy view of the keys from {@code fromKey} to {@code toKey}, named in this view's
     * iteration order (high to low on a descending view), range-checked as
     * {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps are.
     *
     * @throws IllegalArgumentException if a bound lies outside this view's range, or
     *                                  {@code fromKey} comes after {@code toKey}
     * @throws NullPointerException     if a bound is null
     * @throws IllegalStateException    if the map is closed
     */
    public ZeroCopyMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        core.checkOpen();
        Objects.requireNonNull(fromKey);
        Objects.requireNonNull(toKey);
        return new ZeroCopyMap<>(root, core, range.sub(core.keys, fromKey, fromInclusive, toKey, toInclusive));
    }

    /** A live zero-copy view of the keys before {@code toKey} in this view's order (checked as {@link #subMap}). */
    public ZeroCopyMap<K, V> headMap(K toKey, boolean inclusive) {
        core.checkOpen();
        Objects.requireNonNull(toKey);
        return new ZeroCopyMap<>(root, core, range.sub(core.keys, null, false, toKey, inclusive));
    }

    /** A live zero-copy view of the keys from {@code fromKey} on in this view's order (checked as {@link #subMap}). */
    public ZeroCopyMap<K, V> tailMap(K fromKey, boolean inclusive) {
        core.checkOpen();
        Objects.requireNonNull(fromKey);
        return new ZeroCopyMap<>(root, core, range.sub(core.keys, fromKey, inclusive, null, false));
    }

    /**
     * A live zero-copy view of the same keys in the reverse order.
     *
     * @throws IllegalStateException if the map is closed
     */
    public ZeroCopyMap<K, V> descendingMap() {
        core.checkOpen();
        return new ZeroCopyMap<>(root, core, range.reversed());
    }

    /** Number of keys in this view (the whole map: O(1); a sub-range: counted). */
    public int size() {
        return range == KeyRange.ALL ? root.size() : new MapView<>(root, core, range).size();
    }

    /**
     * Keys as buffers, a new buffer per key. Membership is by key, as in a map's key set:
     * {@code contains(b)} and {@code remove(b)} take the key a buffer holds (deserialized with the
     * map's key serializer: a key buffer of this map or of another one with the same key format) and
     * look it up in this view, so {@code removeAll} and {@code retainAll} with another key-buffer
     * set of the map work as they would on keys; a buffer of a key removed meanwhile, a value
     * buffer, or an object that is not a buffer, is in no key set. A buffer views the stored key
     * (no copy): once its key is removed and a rebalance has dropped the entry, the buffer names
     * no key, even if an equal key was put back since (which, before that rebalance, reuses the
     * entry and so the buffer's key); the same holds for an iterator's {@code remove()} of the
     * key its {@code next()} returned. (A buffer's own {@code equals} is identity; so it is
     * for {@link #values()} and {@link #entrySet()}, whose values are not unique.)
     */
    public Set<OakReadBuffer> keySet() {
        return new BufferSet<>(this, Kind.KEYS, false);
    }

    /** Values as buffers, a new buffer per value. */
    public Collection<OakReadBuffer> values() {
        return new BufferSet<>(this, Kind.VALUES, false);
    }

    /** Entries of key and value buffers, new ones per entry. */
    public Set<Map.Entry<OakReadBuffer, OakReadBuffer>> entrySet() {
        return new BufferSet<>(this, Kind.ENTRIES, false);
    }

    /** Keys through one buffer per iterator, re-pointed at each key; membership by key as in {@link #keySet()}. */
    public Set<OakReadBuffer> keyStreamSet() {
        return new BufferSet<>(this, Kind.KEYS, true);
    }

    /** Values through one buffer per iterator, re-pointed at each value. */
    public Collection<OakReadBuffer> valueStreamSet() {
        return new BufferSet<>(this, Kind.VALUES, true);
    }

    /** Entries through one entry and two buffers per iterator, re-pointed at each entry. */
    public Set<Map.Entry<OakReadBuffer, OakReadBuffer>> entryStreamSet() {
        return new BufferSet<>(this, Kind.ENTRIES, true);
    }

    private enum Kind { KEYS, VALUES, ENTRIES }

    /**
     * A set of buffers over the view: iterated, counted, cleared, and for keys looked up and
     * removed by key ({@link #keySet()}); no add, as any map view. Its
     * spliterator is weakly consistent like the legacy views' (CONCURRENT, ORDERED, NONNULL, never
     * SIZED; DISTINCT unless a stream set, which hands out one buffer again and again).
     */
    private static final class BufferSet<T> extends AbstractSet<T> {
        private final ZeroCopyMap<?, ?> map;
        private final Kind kind;
        private final boolean stream;

        BufferSet(ZeroCopyMap<?, ?> map, Kind kind, boolean stream) {
            map.core.checkOpen();
            this.map = map;
            this.kind = kind;
            this.stream = stream;
        }

        @Override
        public Iterator<T> iterator() {
            return new BufferIterator<>(map, kind, stream);
        }

        @Override
        public Spliterator<T> spliterator() {
            int c = ViewIterator.VALUE_CHARACTERISTICS | (stream ? 0 : Spliterator.DISTINCT);
            return ViewIterator.spliterator(iterator(), c, null);
        }

        @Override
        public boolean contains(Object o) {
            return kind == Kind.KEYS ? map.containsKeyIn(o) : super.contains(o);
        }

        @Override
        public boolean remove(Object o) {
            return kind == Kind.KEYS ? map.removeKeyIn(o) : super.remove(o);
        }

        @Override
        public int size() {
            try {
                map.core.checkOpen();
                int n = 0;
                Cursor c = new Cursor(map.core, map.range);
                while (c.advance()) n++;
                return n;
            } finally {
                Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
            }
        }

        @Override
        public boolean isEmpty() {
            try {
                return Cursor.confirmedFirst(map.core, map.range) == null;
            } finally {
                Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
            }
        }
    }

    /**
     * An iterator over a view's buffers. It holds the view, and through it the {@link OakMap}, as
     * the legacy views' iterators do: a scan of a map that nothing else references must not find
     * it closed halfway by its {@code Cleaner}. Its methods read only {@link #core}, so those that
 * reach the map's memory end with a reachability fence of the iterator ({@link OakMap}, "Memory").
     */
    private static final class BufferIterator<T> implements Iterator<T> {
        private final ZeroCopyMap<?, ?> view;
        private final InternalOakMap<?, ?> core;
        private final Cursor cursor;
        private final Kind kind;
        private final boolean stream;
        private final KeyBuffer keyBuffer;
        private final ValueBuffer valueBuffer;
        private final StreamEntry entry;
        private boolean ready, hasNext;
        private long lastKey;

        BufferIterator(ZeroCopyMap<?, ?> view, Kind kind, boolean stream) {
            InternalOakMap<?, ?> core = view.core;
            core.checkOpen();
            this.view = view;
            this.core = core;
            this.cursor = new Cursor(core, view.range);
            this.kind = kind;
            this.stream = stream;
            this.keyBuffer = stream ? new KeyBuffer(core, 0) : null;
            this.valueBuffer = stream ? new ValueBuffer(core, 0, 0) : null;
            this.entry = stream ? new StreamEntry(keyBuffer, valueBuffer) : null;
        }

        @Override
        public boolean hasNext() {
            try {
                core.checkOpen(); // also when it already looked ahead
                if (!ready) {
                    hasNext = cursor.advance();
                    ready = true;
                }
                return hasNext;
            } finally {
                Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public T next() {
            if (!hasNext()) throw new NoSuchElementException(); // checks that the map is open
            ready = false;
            long k = cursor.keyPtr, v = cursor.valuePtr;
            lastKey = k;
            OakReadBuffer kb, vb;
            if (stream) {
                keyBuffer.pointTo(k);
                valueBuffer.pointTo(v, cursor.valueLockWord);
                kb = keyBuffer;
                vb = valueBuffer;
            } else {
                kb = kind == Kind.VALUES ? null : new KeyBuffer(core, k);
                vb = kind == Kind.KEYS ? null : new ValueBuffer(core, v, 0);
            }
            return (T) switch (kind) {
                case KEYS -> kb;
                case VALUES -> vb;
                case ENTRIES -> stream ? entry : new AbstractMap.SimpleImmutableEntry<>(kb, vb);
            };
        }

        @Override
        public void remove() {
            try {
                if (lastKey == 0) throw new IllegalStateException("next() was not called, or remove() was already called");
                core.checkOpen();
                KeyCopy key = core.keys.copy(lastKey);
                lastKey = 0;
                if (key != null) removeProbe(core, key); // null: removed and dropped; the bytes that named it are gone (keySet())
            } finally {
                Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
            }
        }
    }

    /** The reused entry of an entry stream; equals and hashCode as {@link Map.Entry} specifies. */
    private record StreamEntry(OakReadBuffer getKey, OakReadBuffer getValue) implements Map.Entry<OakReadBuffer, OakReadBuffer> {
        @Override
        public OakReadBuffer setValue(OakReadBuffer value) {
            throw new UnsupportedOperationException("zero-copy entries are read-only; use computeIfPresent");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && Objects.equals(getKey, e.getKey()) && Objects.equals(getValue, e.getValue());
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(getKey) ^ Objects.hashCode(getValue);
        }

        @Override
        public String toString() {
            return getKey + "=" + getValue;
        }
    }
}
