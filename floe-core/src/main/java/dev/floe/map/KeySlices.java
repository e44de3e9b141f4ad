package dev.floe.map;

import dev.floe.memory.Region;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;

/**
 * Keys off-heap: one Nova slice per key. Keys are immutable, so a read is a plain Nova optimistic
 * read (stamp, loads, validate). A key slice is deleted only when a rebalance drops its entry, so
 * a lookup that finds a key invalid is looking at a chunk that was replaced, and starts over.
 *
 * <p>Slice layout. A key of up to {@link Nova#maxSlice()} bytes is <em>inline</em>: the slice
 * data is exactly its serialized bytes. A larger key is <em>out of line</em>: the slice has an
 * attached run ({@link Nova#allocateWithRun}, marked by the run bit in its stamp) that holds the
 * serialized bytes, and the slice data is one 8-byte word, the key's length:
 * <pre>
 *   inline:      [ key bytes (stamp length) ]
 *   out of line: [ key length (long) ] [ run word: Nova's ] -&gt; run: [ key bytes ... ]
 * </pre>
 * The stamp's run bit tells a reader which it is. Out of line, the length word and the run word
 * are optimistic loads like the key bytes: a reused slice may give a garbage length or offset,
 * whose view lies inside the region or throws, and the validation that follows every read
 * rejects the result either way (the run is freed only with its slice: {@link Nova#allocateWithRun}).
 * The comparator or deserializer running on such bytes may throw anything, Errors included (a
 * garbage length can make it allocate a huge array): a throw from a read that then fails
 * validation means "retry", one from a read that validates is the user's own and propagates.
 *
 * <p>A <em>probe</em> is what a search compares stored keys with: a user key object {@code K},
 * or a {@link KeyCopy} of a serialized key (used internally, e.g. to find a chunk by its minKey).
 */
final class KeySlices<K> {
    /** {@link #compare} result when the stored key is no longer valid. */
    static final int RETRY = 2;

    /** Slice data of an out-of-line key: its length word. */
    private static final int LENGTH_WORD = 8;

    final Nova nova;
    final Region region;
    final OakSerializer<K> serializer;
    final OakComparator<K> comparator;
    /** Largest inline key: a whole slice. */
    private final long inlineMax;
    /** Largest key: one allocator block, within an {@code int}. */
    final int maxKey;

    KeySlices(Nova nova, OakSerializer<K> serializer, OakComparator<K> comparator) {
        this.nova = nova;
        this.region = nova.region();
        this.serializer = serializer;
        this.comparator = comparator;
        this.inlineMax = nova.maxSlice();
        this.maxKey = (int) Math.min(Integer.MAX_VALUE - 8, nova.allocator().maxAllocation());
    }

    /**
     * Serializes {@code key} into a new private slice and returns its pointer; if the serializer
     * throws, the slice is freed and the exception propagates.
     *
     * @throws IllegalArgumentException if the serialized size is negative or above {@link #maxKey}
     */
    long allocate(K key) {
        int size = serializer.sizeOf(key);
        if (size < 0 || size > maxKey) {
            throw new IllegalArgumentException("key of " + size + " bytes; keys hold 0 to " + maxKey + " bytes");
        }
        long ptr;
        MemorySegment target;
        if (size <= inlineMax) {
            ptr = nova.allocate(size);
            target = region.slice(nova.dataOffset(ptr), size);
        } else {
            ptr = nova.allocateWithRun(LENGTH_WORD, size);
            region.setLongPlain(nova.dataOffset(ptr), size); // published with the pointer, like the bytes
            target = region.slice(nova.runOf(ptr, nova.liveStamp(ptr)), size);
        }
        try {
            serializer.serialize(key, target);
        } catch (Throwable e) {
            nova.deletePrivate(ptr);
            throw e;
        }
        return ptr;
    }

    /**
     * A read-only view of the serialized key in {@code keyPtr}, whose stamp (from a begin-read)
     * is {@code stamp}: optimistic, so the caller validates after using it.
     */
    MemorySegment view(long keyPtr, long stamp) {
        return Nova.hasRun(stamp) ? outOfLineView(keyPtr, stamp) : nova.readView(keyPtr, stamp);
    }

    /** The view of an out-of-line key (a method of its own: keeps {@link #compare} small). */
    private MemorySegment outOfLineView(long keyPtr, long stamp) {
        return region.slice(nova.runOf(keyPtr, stamp), length(keyPtr, stamp)).asReadOnly();
    }

    /** Serialized length of the key in {@code keyPtr} with stamp {@code stamp} (optimistic, like {@link #view}). */
    long length(long keyPtr, long stamp) {
        return Nova.hasRun(stamp) ? region.getLongPlain(nova.dataOffset(keyPtr)) : Nova.stampLength(stamp);
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
            c = compareProbe(probe, view(keyPtr, stamp));
        } catch (Throwable e) {
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
            copy = KeyCopy.of(view(keyPtr, stamp), comparator);
        } catch (Throwable e) {
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
            k = serializer.deserialize(view(keyPtr, stamp));
        } catch (Throwable e) {
            if (nova.validate(keyPtr, stamp)) throw e;
            return null;
        }
        return nova.validate(keyPtr, stamp) ? k : null;
    }
}
