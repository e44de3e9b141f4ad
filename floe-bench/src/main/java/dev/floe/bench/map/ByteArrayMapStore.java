package dev.floe.bench.map;

import java.util.Collection;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;

/**
 * What the peers that are a {@link ConcurrentNavigableMap}{@code <byte[], byte[]>} ({@code cslm},
 * {@code mapdb}) do the same way: put stores copies of the probe's key and value, zc-get reads the
 * value the map hands back, compute is {@code merge} with a function that returns an incremented
 * copy (the map may call it more than once, so it must not mutate the old value; a miss inserts a
 * shared template that is never written), scans iterate {@code tailMap(key, true).values()} of the
 * map or of its descending view.
 */
abstract class ByteArrayMapStore implements MapUnderTest {

    /** merge's function: a copy of the old value with its first word plus one. */
    private static final BiFunction<byte[], byte[], byte[]> INCREMENT_COPY = (old, unused) -> {
        byte[] n = old.clone();
        BenchKeys.NATIVE_LONG.set(n, 0, (long) BenchKeys.NATIVE_LONG.get(n, 0) + 1);
        return n;
    };

    final ConcurrentNavigableMap<byte[], byte[]> map;
    private final ConcurrentNavigableMap<byte[], byte[]> descending;
    /** The value merge inserts on a miss (never written). */
    private final byte[] template;

    ByteArrayMapStore(ConcurrentNavigableMap<byte[], byte[]> map, int valueBytes) {
        this.map = map;
        this.descending = map.descendingMap();
        this.template = new Probe(8, valueBytes).value.clone();
    }

    @Override
    public void put(Probe p) {
        p.nextValue();
        map.put(p.key.clone(), p.value.clone());
    }

    @Override
    public boolean zcGet(Probe p) {
        byte[] v = map.get(p.key);
        if (v == null) return false;
        p.consume(v);
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
}
