package dev.floe.map;

import dev.floe.memory.Region;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * What a zero-copy writer's in-place writes overwrote (an undo log), written back if the writer
 * throws, so that a failed writer leaves the value as it was, as {@link java.util.Map#compute}
 * promises for a function that throws.
 *
 * <p>Records are taken under the value's lock, before the bytes they cover change. Two kinds:
 * <ul>
 *   <li><b>whole</b>: a copy of the value's bytes as they were locked, taken before the writer
 *       writes through a raw view ({@link OakWriteBuffer#segment()}), whose writes are not known
 *       in advance, or before a resize zero-fills bytes of the old value;</li>
 *   <li><b>field</b>: the previous contents of one field (1 to 8 bytes, kept in a {@code long})
 *       that a typed put of {@link OakWriteBuffer} is about to overwrite, so that a compute which
 *       adds to a counter saves 8 bytes rather than the value.</li>
 * </ul>
 * Once a whole copy is taken no field is logged (the copy covers them), so every field record is
 * older than the copy. {@link #rollback} writes the copy first and then the fields newest first:
 * each field record ends with the bytes it held before the first write, the oldest ones. The
 * rollback's stores are plain stores under the value's lock, like the writes they undo: the
 * unlock's release store (a new sequence number) publishes them, and every optimistic read that
 * overlapped any of them fails its validation (ValueSlices, "Readers write nothing shared").
 *
 * <p>A writer's first field record lives in its {@link OakWriteBuffer} (a writer that changes one
 * counter touches no thread-local state); the log holds the rest. One log per thread, reused: a
 * writer takes it at its second record or its copy ({@link #acquire}) and gives it back when the
 * value's lock is released ({@link #release}), so a writer allocates nothing for it. A writer
 * may update another key or map on the same thread (a nested update): that update finds the
 * thread's log busy and takes a fresh one.
 *
 * <p>A value serializer that throws midway through an in-place rewrite is not logged: the legacy
 * API's updates write back the previous value they deserialized, and the zero-copy put leaves
 * its partial bytes (a copy of the value before every put made a 1 KB put a quarter slower, as it
 * waits for the value's cache lines, which a serializer's stores do not).
 */
final class UndoLog {
    private static final ThreadLocal<UndoLog> PER_THREAD = ThreadLocal.withInitial(UndoLog::new);
    private static final byte[] NONE = new byte[0];
    /** A whole copy above this size has its array dropped at release (not kept per thread). */
    private static final int KEPT_COPY_BYTES = 64 << 10;
    /** Field records before {@link #saveField} asks for a whole copy instead. */
    private static final int MAX_FIELDS = 256;

    private boolean busy;
    private byte[] copy = NONE;
    /** Bytes in {@link #copy}, or -1: no whole copy. */
    private int copyLength = -1;
    /**
     * Field records, two words each: {@code offset << 4 | size} (offset below 2^31, size 1, 2, 4
     * or 8), then the field's previous bits.
     */
    private long[] fields = new long[16];
    private int fieldWords;
    /** End of the furthest byte any record covers. */
    private long extent;

    private UndoLog() {}

    /** The thread's log, or a fresh one if an update of this thread holds it (nested update). */
    static UndoLog acquire() {
        UndoLog log = PER_THREAD.get();
        if (log.busy) log = new UndoLog();
        log.busy = true;
        return log;
    }

    /** Forgets every record; the log may be acquired again. */
    void release() {
        copyLength = -1;
        fieldWords = 0;
        extent = 0;
        if (copy.length > KEPT_COPY_BYTES) copy = NONE;
        busy = false;
    }

    /** Copies {@code value} (the value's bytes as locked, modified only by logged fields) unless a copy exists. */
    void saveWhole(MemorySegment value) {
        if (copyLength >= 0) return;
        int n = Math.toIntExact(value.byteSize());
        if (copy.length < n) copy = new byte[Math.max(n, Math.min(KEPT_COPY_BYTES, 2 * copy.length))];
        MemorySegment.copy(value, ValueLayout.JAVA_BYTE, 0, copy, 0, n);
        copyLength = n;
        extent = Math.max(extent, n);
    }

    /**
     * Logs a field of {@code size} bytes at {@code offset} that a typed put is about to
     * overwrite, whose previous {@code bits} the caller read ({@link Region#bits}, which also
     * checks the field's bounds). False if the log is full: the caller then takes a whole copy,
     * which covers this write and every later one.
     */
    boolean saveField(long offset, int size, long bits) {
        if (copyLength >= 0) return true;
        if (fieldWords == 2 * MAX_FIELDS) return false;
        if (fieldWords == fields.length) fields = Arrays.copyOf(fields, 2 * fields.length);
        fields[fieldWords] = offset << 4 | size;
        fields[fieldWords + 1] = bits;
        fieldWords += 2;
        extent = Math.max(extent, offset + size);
        return true;
    }

    /** Bytes from the value's start that {@link #rollback} writes: its view must be at least this long. */
    long extent() {
        return extent;
    }

    /** Writes every saved byte back into {@code value}: the whole copy, then the fields newest first. */
    void rollback(MemorySegment value) {
        if (copyLength >= 0) MemorySegment.copy(copy, 0, value, ValueLayout.JAVA_BYTE, 0, copyLength);
        for (int i = fieldWords - 2; i >= 0; i -= 2) restoreField(value, fields[i], fields[i + 1]);
    }

    /** Writes one field record ({@code offset << 4 | size}, previous bits) back into {@code value}. */
    static void restoreField(MemorySegment value, long field, long bits) {
        long offset = field >>> 4;
        switch ((int) (field & 0xF)) {
            case 1 -> value.set(ValueLayout.JAVA_BYTE, offset, (byte) bits);
            case 2 -> value.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, (short) bits);
            case 4 -> value.set(ValueLayout.JAVA_INT_UNALIGNED, offset, (int) bits);
            default -> value.set(ValueLayout.JAVA_LONG_UNALIGNED, offset, bits);
        }
    }
}
