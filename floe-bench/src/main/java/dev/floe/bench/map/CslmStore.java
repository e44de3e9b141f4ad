package dev.floe.bench.map;

import java.util.Arrays;
import java.util.concurrent.ConcurrentSkipListMap;

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
final class CslmStore extends ByteArrayMapStore {

    CslmStore(int valueBytes) {
        super(new ConcurrentSkipListMap<>(BenchKeys.CODEC), valueBytes);
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        if (map.containsKey(p.key)) return false;
        return map.putIfAbsent(p.key.clone(), p.value.clone()) == null;
    }

    @Override
    public boolean getCopy(Probe p) {
        byte[] v = map.get(p.key);
        if (v == null) return false;
        p.consume(Arrays.copyOf(v, v.length));
        return true;
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
