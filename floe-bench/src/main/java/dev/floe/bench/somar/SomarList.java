package dev.floe.bench.somar;

import dev.floe.reclaim.Somar;

/**
 * LL-map whose key and value live in slices of a SOMAR implementation: every node operation is
 * one access through the key's or the value's safe pointer. How a node holds the two pointers is
 * the subclass's one job ({@link SomarLongList}: primitive {@code long}s, {@link SomarObjectList}:
 * wrapped in objects). A worker JVM runs one implementation, so only one subclass is loaded there
 * and {@link #keyPtr}/{@link #valuePtr} inline to the node's field loads.
 */
abstract class SomarList extends LlMap {

    private final SomarStore store;
    private final Somar somar;

    SomarList(SomarStore store, int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
        this.store = store;
        this.somar = store.somar();
    }

    /** A new node holding these (allocated, privately written) key and value pointers. */
    abstract Node node(long key, long value);

    /** The safe pointer of the node's key. */
    abstract long keyPtr(Node n);

    /** The safe pointer of the node's value. */
    abstract long valuePtr(Node n);

    @Override
    final int compareKey(Node n, Probe p) {
        Integer c = somar.readOr(keyPtr(n), p.keyCompare, null);
        return c == null ? FAILED : c;
    }

    @Override
    final Node newNode(Probe p) {
        long k = somar.allocate(keyBytes);
        somar.writePrivate(k, Keys.WRITE_KEY, p);
        long v = somar.allocate(valueBytes);
        somar.writePrivate(v, Keys.WRITE_VALUE, p);
        return node(k, v);
    }

    @Override
    final void discard(Node n) {
        somar.deletePrivate(keyPtr(n));
        somar.deletePrivate(valuePtr(n));
    }

    @Override
    final boolean overwrite(Node n, Probe p) {
        return somar.writeOr(valuePtr(n), Keys.WRITE_VALUE, p, null) != null;
    }

    @Override
    final boolean readValue(Node n, Probe p) {
        if (somar.readOr(valuePtr(n), p.copyOut, null) == null) return false;
        p.consume();
        return true;
    }

    @Override
    final void retire(Node n) {
        somar.delete(keyPtr(n));
        somar.delete(valuePtr(n));
    }

    @Override
    final long keyId(Node n) {
        Long id = somar.readOr(keyPtr(n), Keys::id, null);
        return id == null ? -1 : id;
    }

    @Override
    public final long offheapCommittedBytes() {
        return store.committedBytes();
    }

    @Override
    public final long offheapLiveBytes() {
        return store.liveBytes();
    }

    @Override
    public final void close() {
        store.close();
    }
}
