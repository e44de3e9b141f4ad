package dev.floe.bench.somar;

import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The skiplist map: {@link ConcurrentSkipListMap} with on-heap {@link SlKey}s and values of type
 * {@code V} (an object referencing an off-heap slice, or a {@code byte[]}). Because a map value
 * must be an object, every put allocates and privately writes a new value
 * ({@link #newValue}), swaps it in with {@code put}, and deletes the one it replaced
 * ({@link #release}); delete removes and deletes; get reads through the value
 * ({@link #readValue}), a failed read meaning a concurrent delete won (the key counts as
 * absent). {@code put} and {@code remove} return each replaced value to exactly one thread, so
 * every value is released once.
 */
abstract class SlMap<V> implements BenchMap {

    final ConcurrentSkipListMap<SlKey, V> map = new ConcurrentSkipListMap<>();
    final int keyBytes;
    final int valueBytes;

    SlMap(int keyBytes, int valueBytes) {
        this.keyBytes = keyBytes;
        this.valueBytes = valueBytes;
    }

    /** A new value holding the probe's value, written while private. */
    abstract V newValue(Probe p);

    /** Deletes a value that was removed from the map. */
    abstract void release(V old);

    /** Copies the first bytes of the value into the probe; false if it was deleted meanwhile. */
    abstract boolean readValue(V v, Probe p);

    @Override
    public Probe newProbe() {
        return new Probe(keyBytes, valueBytes);
    }

    @Override
    public boolean put(Probe p) {
        p.nextValue();
        V old = map.put(p.newSlKey(), newValue(p));
        if (old == null) return true;
        release(old);
        return false;
    }

    @Override
    public boolean delete(Probe p) {
        V old = map.remove(p.slKey);
        if (old == null) return false;
        release(old);
        return true;
    }

    @Override
    public boolean get(Probe p) {
        V v = map.get(p.slKey);
        return v != null && readValue(v, p);
    }

    @Override
    public long size() {
        return map.size();
    }

    /** Releases every value still in the map (tear-down). */
    void releaseAll() {
        for (V v : map.values()) release(v);
        map.clear();
    }
}
