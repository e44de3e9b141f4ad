package dev.floe.bench.somar;

import java.util.Arrays;

/**
 * LL-map with plain on-heap {@code byte[]} keys and values ({@code gc-g1}, {@code gc-zgc},
 * {@code gc-parallel}: the same code, a different collector in each worker JVM). An overwrite
 * copies into the existing value array, like the off-heap variants' in-place write; deleted
 * nodes are left to the collector.
 */
final class HeapList extends LlMap {

    static final class HeapNode extends Node {
        final byte[] key;
        final byte[] value;

        HeapNode(byte[] key, byte[] value) {
            this.key = key;
            this.value = value;
        }
    }

    HeapList(int keyBytes, int valueBytes) {
        super(keyBytes, valueBytes);
    }

    @Override
    int compareKey(Node n, Probe p) {
        return Keys.compare(((HeapNode) n).key, p);
    }

    @Override
    Node newNode(Probe p) {
        return new HeapNode(Arrays.copyOf(p.key, keyBytes), Arrays.copyOf(p.value, valueBytes));
    }

    @Override
    void discard(Node n) {
        // garbage
    }

    @Override
    boolean overwrite(Node n, Probe p) {
        System.arraycopy(p.value, 0, ((HeapNode) n).value, 0, valueBytes);
        return true;
    }

    @Override
    boolean readValue(Node n, Probe p) {
        Keys.copyOut(((HeapNode) n).value, p.out);
        p.consume();
        return true;
    }

    @Override
    void retire(Node n) {
        // garbage
    }

    @Override
    long keyId(Node n) {
        return Keys.id(((HeapNode) n).key);
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
        // nothing off-heap
    }
}
