package dev.floe.bench.somar;

/**
 * A safe pointer in an object: a key or value of {@link SomarObjectList}'s nodes, and a
 * {@link SomarSkiplist} map value (a map value cannot be a primitive).
 */
final class PtrRef {
    final long ptr;

    PtrRef(long ptr) {
        this.ptr = ptr;
    }
}
