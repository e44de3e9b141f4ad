package dev.floe.map;

import java.lang.foreign.MemorySegment;

/**
 * The key order of an {@link OakMap}: it compares key objects, serialized keys, and one of each,
 * so that a lookup never has to deserialize a stored key (the Oak paper's comparator). The three
 * methods must define the same total order: for all keys {@code a}, {@code b} with serialized
 * forms {@code sa}, {@code sb}, the signs of {@code compareKeys(a, b)},
 * {@code compareSerializedKeys(sa, sb)} and {@code compareKeyAndSerializedKey(a, sb)} agree.
 *
 * <p>Serialized keys arrive as read-only views bounded to the key's bytes; they may be heap or
 * off-heap segments, so read multi-byte fields with the {@code *_UNALIGNED} layouts. A comparator
 * must not keep a view after it returns. It may run on a key that a concurrent rebalance has just
 * retired: the map validates afterwards and discards the result, so a comparator must tolerate
 * arbitrary bytes (an exception it throws on such bytes is discarded too).
 */
public interface OakComparator<K> {
    int compareKeys(K a, K b);

    int compareSerializedKeys(MemorySegment a, MemorySegment b);

    int compareKeyAndSerializedKey(K key, MemorySegment serializedKey);
}
