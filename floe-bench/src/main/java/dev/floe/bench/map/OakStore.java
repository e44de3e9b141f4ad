package dev.floe.bench.map;

import dev.floe.map.OakCodecs;
import dev.floe.map.OakMap;
import dev.floe.map.OakReadBuffer;
import dev.floe.map.OakWriteBuffer;
import dev.floe.map.RemovedValueException;
import dev.floe.map.ZeroCopyMap;
import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@code floe-oak} and {@code floe-oak-noreclaim}: Floe's {@link OakMap} over an allocator of its
 * own with the off-heap budget (built like {@code OakMap.builder(...).budget(...)} does, but kept
 * here so the report can read its statistics). The zero-copy API ({@link OakMap#zc()}) for
 * every operation except get-copy, which is the legacy {@code get} (a deserialized copy):
 * {@code zc().put} / {@code putIfAbsent} / {@code remove} return no old value, compute is
 * {@code putIfAbsentComputeIfPresent} with an in-place 8-byte increment, scans iterate
 * {@code tailMap(key, true).valueStreamSet()} (one re-pointed buffer per scan) of the map or of
 * {@code descendingMap()}.
 */
final class OakStore implements MapUnderTest {

    private static final AtomicInteger MAPS = new AtomicInteger();

    /** The compute: add one to the first word, in place. */
    private static final Consumer<OakWriteBuffer> INCREMENT = w -> w.putLong(0, w.getLong(0) + 1);

    private final FloeAllocator allocator;
    private final OakMap<byte[], byte[]> map;
    private final ZeroCopyMap<byte[], byte[]> zc;
    private final ZeroCopyMap<byte[], byte[]> descending;
    private final int rawEntryBytes;

    /**
     * @param preTouch off-heap bytes faulted in when the allocator is built (the counterpart of
     *                 the workers' {@code -XX:+AlwaysPreTouch}; {@link FloeAllocator.Builder#preTouch})
     */
    OakStore(long offheapBudget, long preTouch, boolean reclaim, int keyBytes, int valueBytes) {
        long region = Math.max(64L << 20, Long.highestOneBit(offheapBudget) << 2);
        this.allocator = FloeAllocator.builder()
                .name("bench-map-oak-" + MAPS.incrementAndGet())
                .budget(offheapBudget)
                .preTouch(preTouch)
                .regionSize(region)
                .build();
        this.map = OakMap.builder(BenchKeys.CODEC, OakCodecs.BYTES, BenchKeys.CODEC)
                .nova(new Nova(allocator))
                .reclaim(reclaim)
                .build();
        this.zc = map.zc();
        this.descending = zc.descendingMap();
        this.rawEntryBytes = keyBytes + valueBytes;
    }

    @Override
    public void put(Probe p) {
        p.nextValue();
        zc.put(p.key, p.value);
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        return zc.putIfAbsent(p.key, p.value);
    }

    @Override
    public boolean zcGet(Probe p) {
        OakReadBuffer b = zc.get(p.key);
        if (b == null) return false;
        try {
            p.consume(b.getLong(0));
            return true;
        } catch (RemovedValueException e) {
            return false; // removed between the lookup and the read
        }
    }

    @Override
    public boolean getCopy(Probe p) {
        byte[] v = map.get(p.key);
        if (v == null) return false;
        p.consume(v);
        return true;
    }

    @Override
    public void compute(Probe p) {
        zc.putIfAbsentComputeIfPresent(p.key, p.value, INCREMENT);
    }

    @Override
    public boolean remove(Probe p) {
        return zc.remove(p.key);
    }

    @Override
    public int scan(Probe p, int n, boolean descendingOrder) {
        ZeroCopyMap<byte[], byte[]> view = (descendingOrder ? descending : zc).tailMap(p.key, true);
        int visited = 0;
        for (OakReadBuffer v : view.valueStreamSet()) {
            try {
                p.consume(v.getLong(0));
            } catch (RemovedValueException e) {
                // removed while we scanned: skip it
            }
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
        return allocator.stats().committedBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return allocator.stats().liveBytes();
    }

    @Override
    public Map<String, Double> extra() {
        Map<String, Double> m = new LinkedHashMap<>();
        long entries = map.size();
        double raw = (double) entries * rawEntryBytes;
        long footprint = map.offHeapFootprint();
        m.put("offheap_footprint_bytes", (double) footprint);
        if (entries > 0) {
            m.put("offheap_live_per_raw", allocator.stats().liveBytes() / raw);
            m.put("footprint_per_raw", footprint / raw);
        }
        return m;
    }

    @Override
    public void close() {
        try {
            map.close();
        } finally {
            allocator.close();
        }
    }
}
