package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Function;

/**
 * A read-only view of a key or value that lives off-heap in an {@link OakMap} (the Oak paper's
 * OakRBuffer): the zero-copy API returns these instead of deserialized objects.
 *
 * <p>Every read is checked: a value buffer always reads the value's current bytes (following it
 * when it grows and moves) and each read sees one consistent version (no torn reads while a
 * writer updates it in place). Once the key is removed from the map, reads throw
 * {@link RemovedValueException}; once the map is closed, {@link IllegalStateException} (also a
 * read that was under way when the close came). Reads also throw RemovedValueException, rarely,
 * when the value moved (grew or shrank past its block) and the memory it moved from was already
 * reused, so that the buffer cannot follow it, even a buffer just returned by {@code get}: that
 * needs a Nova batch of deletes between the move and the read (1,000 by default); a fresh
 * {@code get} finds the value.
 * Multi-byte getters use native byte order and allow any offset within {@link #size()}; an
 * offset outside it throws {@link IndexOutOfBoundsException}.
 * Buffers may be kept and read from any thread; the stream variants of the scan views reuse one
 * buffer per iterator, which then belongs to that iterator's thread.
 */
public interface OakReadBuffer {
    /** Current size in bytes. */
    int size();

    /**
     * Applies {@code reader} to a read-only view bounded to the bytes and returns its result. The
     * view is valid only during the call. The reader may run more than once (when a concurrent
     * writer changed the value meanwhile) and must have no side effects.
     */
    <T> T transform(Function<MemorySegment, T> reader);

    default byte getByte(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_BYTE, offset));
    }

    default short getShort(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, offset));
    }

    default char getChar(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_CHAR_UNALIGNED, offset));
    }

    default int getInt(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_INT_UNALIGNED, offset));
    }

    default long getLong(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, offset));
    }

    default float getFloat(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset));
    }

    default double getDouble(int offset) {
        return transform(s -> s.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset));
    }

    /** A copy of the bytes. */
    default byte[] toByteArray() {
        return transform(s -> s.toArray(ValueLayout.JAVA_BYTE));
    }
}
