package dev.floe.bench.map;

import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiFunction;

/**
 * {@code cslm}: {@link ConcurrentSkipListMap}{@code <byte[], byte[]>} on the heap, ordered by
 * {@link BenchKeys} (no wrapper object per key). Values are never changed in place: put stores
 * a new array, compute is {@code merge} with a function that returns an incremented copy (the
 * map may call it more than once, so it must not mutate the old value); zc-get reads the stored
 * array itself (a reference, no copy), get-copy copies it.
 *
 * <p>Stored keys are copies of the probe's key. put-if-absent and the insert branch of compute
 * look first and allocate the new key (and value) only when they insert, as a careful caller
 * would; merge inserts a shared template value on a miss (safe: no value array is ever written
 * after it was stored).
 */
final class CslmStore implements MapUnderTest {

    /** merge's function: a copy of the old value with its first word plus one. */
    private static final BiFunction<byte[], byte[], byte[]> INCREMENT_COPY = (old, unused) -> {
        byte[] n = old.clone();
        BenchKeys.NATIVE_LONG.set(n, 0, (long) BenchKeys.NATIVE_LONG.get(n, 0) + 1);
        return n;
    };

    private final ConcurrentSkipListMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(BenchKeys.CODEC);
    private final ConcurrentNavigableMap<byte[], byte[]> descending = map.descendingMap();
    /** The value merge inserts on a miss (never written). */
    private final byte[] template;

    CslmStore(int valueBytes) {
        this.template = new Probe(8, valueBytes).value.clone();
    }

    @Override
    public void put(Probe p) {
        p.nextValue();
        map.put(p.key.clone(), p.value.clone());
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        if (map.containsKey(p.key)) return false;
        return map.putIfAbsent(p.key.clone(), p.value.clone()) == null;
    }

    @Override
    public boolean zcGet(Probe p) {
        byte[] v = map.get(p.key);
        if (v == null) return false;
        p.consume(v);
        return true;
    }

    @Override
    public boolean getCopy(Probe p) {
        byte[] v = map.get(p.key);
        if (v == null) return false;
        p.consume(Arrays.copyOf(v, v.length));
        return true;
    }

    @Override
    public void compute(Probe p) {
        map.merge(p.key.clone(), template, INCREMENT_COPY);
    }

    @Override
    public boolean remove(Probe p) {
        return map.remove(p.key) != null;
    }

    @Override
    public int scan(Probe p, int n, boolean descendingOrder) {
        Collection<byte[]> values = (descendingOrder ? descending : map).tailMap(p.key, true).values();
        int visited = 0;
        for (byte[] v : values) {
            p.consume(v);
            if (++visited == n) break;
        }
        return visited;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long offheapCommittedBytes() {
        return 0;
    }

    @Override
    public long offheapLiveBytes() {
        return 0;
    }

    @Override
    public void close() {
        map.clear();
    }
}
