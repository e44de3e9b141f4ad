package dev.floe.bench.somar;

import java.util.Arrays;

/** Skiplist with plain {@code byte[]} values on the heap (the gc-* implementations). */
final class HeapSkiplist extends SlMap<byte[]> {

    HeapSkiplist(int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
    }

    @Override
    byte[] newValue(Probe p) {
        return Arrays.copyOf(p.value, valueBytes);
    }

    @Override
    void release(byte[] old) {
        // garbage
    }

    @Override
    boolean readValue(byte[] v, Probe p) {
        Keys.copyOut(v, p.out);
        p.consume();
        return true;
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
