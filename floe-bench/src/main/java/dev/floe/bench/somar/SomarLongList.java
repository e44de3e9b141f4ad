package dev.floe.bench.somar;

import dev.floe.reclaim.Somar;

/**
 * LL-map whose nodes hold their key's and value's safe pointers as primitive {@code long}s
 * ({@code floe-nova} and the other SOMAR implementations): no object per key or value, and a key
 * comparison is one {@link Somar#readOr} on the pointer in the node.
 */
final class SomarLongList extends LlMap {

    static final class LongNode extends Node {
        final long key;
        final long value;

        LongNode(long key, long value) {
            this.key = key;
            this.value = value;
        }
    }

    private final SomarStore store;
    private final Somar somar;

    SomarLongList(SomarStore store, int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
        this.store = store;
        this.somar = store.somar();
    }

    @Override
    int compareKey(Node n, Probe p) {
        Integer c = somar.readOr(((LongNode) n).key, p.keyCompare, null);
        return c == null ? FAILED : c;
    }

    @Override
    Node newNode(Probe p) {
        long k = somar.allocate(keyBytes);
        somar.writePrivate(k, Keys.WRITE_KEY, p);
        long v = somar.allocate(valueBytes);
        somar.writePrivate(v, Keys.WRITE_VALUE, p);
        return new LongNode(k, v);
    }

    @Override
    void discard(Node n) {
        LongNode x = (LongNode) n;
        somar.deletePrivate(x.key);
        somar.deletePrivate(x.value);
    }

    @Override
    boolean overwrite(Node n, Probe p) {
        return somar.writeOr(((LongNode) n).value, Keys.WRITE_VALUE, p, null) != null;
    }

    @Override
    boolean readValue(Node n, Probe p) {
        if (somar.readOr(((LongNode) n).value, p.copyOut, null) == null) return false;
        p.consume();
        return true;
    }

    @Override
    void retire(Node n) {
        LongNode x = (LongNode) n;
        somar.delete(x.key);
        somar.delete(x.value);
    }

    @Override
    long keyId(Node n) {
        Long id = somar.readOr(((LongNode) n).key, Keys::id, null);
        return id == null ? -1 : id;
    }

    @Override
    public long offheapCommittedBytes() {
        return store.committedBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return store.liveBytes();
    }

    @Override
    public void close() {
        store.close();
    }
}
