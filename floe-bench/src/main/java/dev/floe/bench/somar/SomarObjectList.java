package dev.floe.bench.somar;

import dev.floe.reclaim.Somar;

/**
 * LL-map whose nodes hold their key's and value's safe pointers wrapped in small objects
 * ({@code floe-nova-object}): the paper's measurement of what one more indirection per key and
 * value costs next to primitive pointers ({@link SomarLongList}).
 */
final class SomarObjectList extends LlMap {

    /** A safe pointer in an object. */
    static final class Ref {
        final long ptr;

        Ref(long ptr) {
            this.ptr = ptr;
        }
    }

    static final class RefNode extends Node {
        final Ref key;
        final Ref value;

        RefNode(Ref key, Ref value) {
            this.key = key;
            this.value = value;
        }
    }

    private final SomarStore store;
    private final Somar somar;

    SomarObjectList(SomarStore store, int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
        this.store = store;
        this.somar = store.somar();
    }

    @Override
    int compareKey(Node n, Probe p) {
        Integer c = somar.readOr(((RefNode) n).key.ptr, p.keyCompare, null);
        return c == null ? FAILED : c;
    }

    @Override
    Node newNode(Probe p) {
        long k = somar.allocate(keyBytes);
        somar.writePrivate(k, Keys.WRITE_KEY, p);
        long v = somar.allocate(valueBytes);
        somar.writePrivate(v, Keys.WRITE_VALUE, p);
        return new RefNode(new Ref(k), new Ref(v));
    }

    @Override
    void discard(Node n) {
        RefNode x = (RefNode) n;
        somar.deletePrivate(x.key.ptr);
        somar.deletePrivate(x.value.ptr);
    }

    @Override
    boolean overwrite(Node n, Probe p) {
        return somar.writeOr(((RefNode) n).value.ptr, Keys.WRITE_VALUE, p, null) != null;
    }

    @Override
    boolean readValue(Node n, Probe p) {
        if (somar.readOr(((RefNode) n).value.ptr, p.copyOut, null) == null) return false;
        p.consume();
        return true;
    }

    @Override
    void retire(Node n) {
        RefNode x = (RefNode) n;
        somar.delete(x.key.ptr);
        somar.delete(x.value.ptr);
    }

    @Override
    long keyId(Node n) {
        Long id = somar.readOr(((RefNode) n).key.ptr, Keys::id, null);
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
