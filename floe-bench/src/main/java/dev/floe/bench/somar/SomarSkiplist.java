package dev.floe.bench.somar;

import dev.floe.reclaim.Somar;

/**
 * Skiplist whose values are small objects holding a safe pointer to a 1 KiB slice (every SOMAR
 * implementation; for {@code floe-nova} and {@code floe-nova-object} alike, since a map value
 * cannot be a primitive).
 */
final class SomarSkiplist extends SlMap<PtrRef> {

    private final SomarStore store;
    private final Somar somar;

    SomarSkiplist(SomarStore store, int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
        this.store = store;
        this.somar = store.somar();
    }

    @Override
    PtrRef newValue(Probe p) {
        long ptr = somar.allocate(valueBytes);
        somar.writePrivate(ptr, Keys.WRITE_VALUE, p);
        return new PtrRef(ptr);
    }

    @Override
    void release(PtrRef old) {
        somar.delete(old.ptr);
    }

    @Override
    boolean readValue(PtrRef v, Probe p) {
        if (somar.readOr(v.ptr, p.copyOut, null) == null) return false;
        p.consume();
        return true;
    }

    @Override
    public long offheapCommittedBytes() {
        return store.committedBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return store.liveBytes();
    }

    /** Drops the map's entries first, so that no value object keeps a pointer into the closed store. */
    @Override
    public void close() {
        map.clear();
        store.close();
    }
}
