package dev.floe.bench.map;

import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

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
final class MapDbStore extends ByteArrayMapStore {

    private final DB db;
    private final BTreeMap<byte[], byte[]> tree;

    MapDbStore(int valueBytes) {
        this(DBMaker.memoryDirectDB().make(), valueBytes);
    }

    private MapDbStore(DB db, int valueBytes) {
        this(db, db.treeMap("bench", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY)
                .valuesOutsideNodesEnable()
                .createOrOpen(), valueBytes);
    }

    private MapDbStore(DB db, BTreeMap<byte[], byte[]> tree, int valueBytes) {
        super(tree, valueBytes);
        this.db = db;
        this.tree = tree;
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        // MapDB's putIfAbsentBoolean returns whether the key WAS present (it did not insert)
        return !tree.putIfAbsentBoolean(p.key.clone(), p.value.clone());
    }

    @Override
    public boolean getCopy(Probe p) {
        return zcGet(p);
    }

    @Override
    public long size() {
        return tree.sizeLong();
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
