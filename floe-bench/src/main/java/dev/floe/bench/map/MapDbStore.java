package dev.floe.bench.map;

import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;

/**
 * {@code mapdb}: MapDB 3's {@link BTreeMap} in a direct-memory store
 * ({@code DBMaker.memoryDirectDB()}: {@code DirectByteBuffer} volumes, capped by the worker's
 * {@code -XX:MaxDirectMemorySize}), keys and values with {@code Serializer.BYTE_ARRAY} (unsigned
 * lexicographic order, the benchmark's key order) and values outside the B-tree nodes
 * ({@code valuesOutsideNodesEnable()}: with 1 KB values inside the nodes every update rewrites a
 * node of dozens of kilobytes, and the store fragments past any reasonable budget).
 *
 * <p>MapDB serializes on every access, so every read is a copy (zc-get and get-copy do the same
 * work) and compute is {@code merge} (get, then replace-if-unchanged or put-if-absent, with an
 * incremented copy). Keys and values handed to MapDB are copies of the probe's arrays.
 * Off-heap figures: the JVM's {@code direct} buffer pool (MapDB has no counters of its own;
 * committed = capacity of the direct buffers, live = memory used by them).
 */
final class MapDbStore implements MapUnderTest {

    private static final BiFunction<byte[], byte[], byte[]> INCREMENT_COPY = (old, unused) -> {
        byte[] n = old.clone();
        BenchKeys.NATIVE_LONG.set(n, 0, (long) BenchKeys.NATIVE_LONG.get(n, 0) + 1);
        return n;
    };

    private final DB db;
    private final BTreeMap<byte[], byte[]> map;
    private final ConcurrentNavigableMap<byte[], byte[]> descending;
    private final byte[] template;

    MapDbStore(int valueBytes) {
        this.db = DBMaker.memoryDirectDB().make();
        this.map = db.treeMap("bench", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY)
                .valuesOutsideNodesEnable()
                .createOrOpen();
        this.descending = map.descendingMap();
        this.template = new Probe(8, valueBytes).value.clone();
    }

    @Override
    public void put(Probe p) {
        p.nextValue();
        map.put(p.key.clone(), p.value.clone());
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        // MapDB's putIfAbsentBoolean returns whether the key WAS present (it did not insert)
        return !map.putIfAbsentBoolean(p.key.clone(), p.value.clone());
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
        return zcGet(p);
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
        return map.sizeLong();
    }

    @Override
    public long offheapCommittedBytes() {
        BufferPoolMXBean b = directPool();
        return b == null ? 0 : b.getTotalCapacity();
    }

    @Override
    public long offheapLiveBytes() {
        BufferPoolMXBean b = directPool();
        return b == null ? 0 : b.getMemoryUsed();
    }

    private static BufferPoolMXBean directPool() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) return b;
        }
        return null;
    }

    @Override
    public void close() {
        db.close();
    }
}
