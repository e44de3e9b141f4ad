package dev.floe.bench.somar;

/**
 * An on-heap skiplist key: a byte array ordered as an unsigned byte string ({@link Keys}). Keys
 * stored in the map are never changed; a thread's probe key ({@link Probe#slKey}) is a view of
 * its mutable key buffer and is only used for lookups.
 */
final class SlKey implements Comparable<SlKey> {

    final byte[] bytes;

    SlKey(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public int compareTo(SlKey o) {
        return Keys.compare(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlKey k && Keys.compare(bytes, k.bytes) == 0;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(Keys.id(bytes));
    }

    long id() {
        return Keys.id(bytes);
    }
}
