package dev.floe.map;

import java.lang.foreign.MemorySegment;

/**
 * The key order of an {@link OakMap}: it compares key objects, serialized keys, and one of each,
 * so that a lookup never has to deserialize a stored key (the Oak paper's comparator). The three
 * methods must define the same total order: for all keys {@code a}, {@code b} with serialized
 * forms {@code sa}, {@code sb}, the signs of {@code compareKeys(a, b)},
 * {@code compareSerializedKeys(sa, sb)} and {@code compareKeyAndSerializedKey(a, sb)} agree.
 * Keys that compare equal are the same key to the map: which of their serialized forms it
 * keeps is unspecified (a put of a key equal to one removed just before may keep the removed
 * one's bytes until a rebalance drops its entry; ConcurrentSkipListMap stores the new key).
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

    /**
     * Optional speed-up: a 64-bit <em>order prefix</em> of the key, kept beside each entry on-heap
     * so that most comparisons of a search never read the key off-heap. The contract: whenever
     * {@code Long.compareUnsigned(prefixOf(a), prefixOf(b)) < 0}, {@code a} orders before
     * {@code b}; equal prefixes say nothing (the map then compares the keys). For byte-wise ordered
     * keys, the first 8 bytes big-endian, zero-padded, qualify. The default, 0 for every key, is
     * always correct and disables the shortcut.
     */
    default long prefixOf(K key) {
        return 0;
    }

    /** {@link #prefixOf} of a serialized key; must equal {@code prefixOf} of the key it holds. */
    default long prefixOfSerialized(MemorySegment serializedKey) {
        return 0;
    }
}
