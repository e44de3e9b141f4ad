package dev.floe.bench.somar;

/**
 * LL-map whose nodes hold their key's and value's safe pointers wrapped in small objects
 * ({@code floe-nova-object}): the paper's measurement of what one more indirection per key and
 * value costs next to primitive pointers ({@link SomarLongList}).
 */
final class SomarObjectList extends SomarList {

    static final class RefNode extends Node {
        final PtrRef key;
        final PtrRef value;

        RefNode(PtrRef key, PtrRef value) {
            this.key = key;
            this.value = value;
        }
    }

    SomarObjectList(SomarStore store, int keyBytes, int valueBytes) {
        super(store, keyBytes, valueBytes);
    }

    @Override
    Node node(long key, long value) {
        return new RefNode(new PtrRef(key), new PtrRef(value));
    }

    @Override
    long keyPtr(Node n) {
        return ((RefNode) n).key.ptr;
    }

    @Override
    long valuePtr(Node n) {
        return ((RefNode) n).value.ptr;
    }
}
