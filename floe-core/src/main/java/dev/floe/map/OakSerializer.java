package dev.floe.map;

import java.lang.foreign.MemorySegment;

/**
 * Turns keys or values into bytes off-heap and back (the Oak paper's serializer). The map calls
 * {@link #sizeOf} first, allocates exactly that many bytes, then {@link #serialize}s into a view
 * bounded to them; {@link #deserialize} gets a read-only view bounded to the stored bytes.
 *
 * <p>Views are plain {@link MemorySegment}s: use the {@code *_UNALIGNED} value layouts for
 * multi-byte fields at arbitrary offsets. Implementations must be stateless or thread-safe, and
 * {@code deserialize} must not keep the view (it is only valid during the call).
 */
public interface OakSerializer<T> {
    /**
     * Writes {@code object} into {@code target}, which is exactly {@link #sizeOf}{@code (object)}
     * bytes (a write outside it throws {@link IndexOutOfBoundsException}). When a map overwrites a
     * present value in place, {@code target} is that value's memory: if this method throws, the
     * update fails, and readers never see the bytes written before the exception. An update of
     * the map's legacy API then writes the previous value back (it has it deserialized), so the
     * mapping stays as it was; the zero-copy {@link ZeroCopyMap#put put} has no previous value,
     * and the bytes written stay in the value.
     */
    void serialize(T object, MemorySegment target);

    /** Rebuilds an object from {@code source}, a read-only view of the stored bytes. */
    T deserialize(MemorySegment source);

    /** The number of bytes {@link #serialize} writes for {@code object} (at least 0). */
    int sizeOf(T object);
}
