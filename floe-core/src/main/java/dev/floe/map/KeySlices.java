package dev.floe.map;

import dev.floe.memory.Region;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;

/**
 * Keys off-heap: one Nova slice per key holding exactly its serialized bytes. Keys are immutable,
 * so a read is a plain Nova optimistic read (stamp, loads, validate). A key slice is deleted only
 * when a rebalance drops its entry, so a lookup that finds a key invalid is looking at a chunk
 * that was replaced, and starts over.
 *
 * <p>A <em>probe</em> is what a search compares stored keys with: a user key object {@code K},
 * or a {@link KeyCopy} of a serialized key (used internally, e.g. to find a chunk by its minKey).
 */
final class KeySlices<K> {
    /** {@link #compare} result when the stored key is no longer valid. */
    static final int RETRY = 2;

    final Nova nova;
    final Region region;
    final OakSerializer<K> serializer;
    final OakComparator<K> comparator;

    KeySlices(Nova nova, OakSerializer<K> serializer, OakComparator<K> comparator) {
        this.nova = nova;
        this.region = nova.region();
        this.serializer = serializer;
        this.comparator = comparator;
    }

    /** Serializes {@code key} into a new private slice and returns its pointer. */
    long allocate(K key) {
        int size = serializer.sizeOf(key);
        if (size < 0 || size > nova.maxSlice()) {
            throw new IllegalArgumentException("key of " + size + " bytes; keys hold 0 to " + nova.maxSlice() + " bytes");
        }
        long ptr = nova.allocate(size);
        serializer.serialize(key, region.slice(nova.dataOffset(ptr), size));
        return ptr;
    }

    /** The order prefix of a probe ({@link OakComparator#prefixOf}). */
    @SuppressWarnings("unchecked")
    long prefixOfProbe(Object probe) {
        return probe instanceof KeyCopy kc ? kc.prefix : comparator.prefixOf((K) probe);
    }

    /** Sign of {@code probe} compared with {@code serialized}: -1, 0 or 1. */
    @SuppressWarnings("unchecked")
    int compareProbe(Object probe, MemorySegment serialized) {
        int c = probe instanceof KeyCopy kc
                ? comparator.compareSerializedKeys(kc.segment, serialized)
                : comparator.compareKeyAndSerializedKey((K) probe, serialized);
        return Integer.signum(c);
    }

    /** Sign of {@code a} compared with {@code b}, both probes (order prefixes first). */
    int compareProbes(Object a, Object b) {
        int c = Long.compareUnsigned(prefixOfProbe(a), prefixOfProbe(b));
        return c != 0 ? c : compareProbesFully(a, b);
    }

    @SuppressWarnings("unchecked")
    private int compareProbesFully(Object a, Object b) {
        if (a instanceof KeyCopy ka) {
            return b instanceof KeyCopy kb
                    ? Integer.signum(comparator.compareSerializedKeys(ka.segment, kb.segment))
                    : -Integer.signum(comparator.compareKeyAndSerializedKey((K) b, ka.segment));
        }
        return b instanceof KeyCopy kb
                ? Integer.signum(comparator.compareKeyAndSerializedKey((K) a, kb.segment))
                : Integer.signum(comparator.compareKeys((K) a, (K) b));
    }

    /**
     * Sign of {@code probe} compared with the key in {@code keyPtr}, or {@link #RETRY} if that key
     * slice is no longer valid (its entry was dropped by a rebalance). An exception the comparator
     * throws on a key that turned out invalid is discarded (RETRY); on a valid key it propagates.
     */
    int compare(Object probe, long keyPtr) {
        long stamp = nova.beginReadOwned(keyPtr); // the map's own pointer: no geometry lookup
        if (stamp == 0 || Nova.isDeletedStamp(stamp)) return RETRY;
        int c;
        try {
            c = compareProbe(probe, nova.readView(keyPtr, stamp));
        } catch (RuntimeException e) {
            if (nova.validate(keyPtr, stamp)) throw e;
            return RETRY;
        }
        return nova.validate(keyPtr, stamp) ? c : RETRY;
    }

    /** An on-heap copy of the key, or null if the slice is no longer valid. */
    KeyCopy copy(long keyPtr) {
        long stamp = nova.beginRead(keyPtr);
        if (stamp == 0) return null;
        KeyCopy copy;
        try {
            copy = KeyCopy.of(nova.readView(keyPtr, stamp), comparator);
        } catch (RuntimeException e) {
            if (nova.validate(keyPtr, stamp)) throw e;
            return null;
        }
        return nova.validate(keyPtr, stamp) ? copy : null;
    }

    /** The key object, or null if the slice is no longer valid. */
    K deserialize(long keyPtr) {
        long stamp = nova.beginRead(keyPtr);
        if (stamp == 0) return null;
        K k;
        try {
            k = serializer.deserialize(nova.readView(keyPtr, stamp));
        } catch (RuntimeException e) {
            if (nova.validate(keyPtr, stamp)) throw e;
            return null;
        }
        return nova.validate(keyPtr, stamp) ? k : null;
    }
}
