package dev.floe.bench.somar;

import dev.floe.reclaim.Somar;

/**
 * LL-map whose nodes hold their key's and value's safe pointers as primitive {@code long}s
 * ({@code floe-nova} and the other SOMAR implementations): no object per key or value, and a key
 * comparison is one {@link Somar#readOr} on the pointer in the node.
 */
final class SomarLongList extends SomarList {

    static final class LongNode extends Node {
        final long key;
        final long value;

        LongNode(long key, long value) {
            this.key = key;
            this.value = value;
        }
    }

    SomarLongList(SomarStore store, int keyBytes, int valueBytes) {
        super(store, keyBytes, valueBytes);
    }

    @Override
    Node node(long key, long value) {
        return new LongNode(key, value);
    }

    @Override
    long keyPtr(Node n) {
        return ((LongNode) n).key;
    }

    @Override
    long valuePtr(Node n) {
        return ((LongNode) n).value;
    }
}
