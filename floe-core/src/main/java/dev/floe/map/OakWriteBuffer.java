package dev.floe.map;

import dev.floe.memory.Region;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The value of a key, writable, handed to a zero-copy compute function (the Oak paper's
 * OakWBuffer). Only valid during that call: the map holds the value's lock meanwhile, so the
 * function runs atomically (no other writer, and readers see the value before or after it, never
 * in between) and exactly once.
 *
 * <p>The function may change the size: {@link #resize} within the slice's capacity happens in
 * place; beyond it (or far below it, see {@link #resize}) the map copies the value into a slice
 * of the new size and installs that one when the function returns. If the function throws, the
 * value stays as it was, as {@link java.util.Map#compute} promises: such a copy is dropped, and
 * what the function wrote in place is written back before the value is unlocked (an
 * {@link UndoLog}: a typed put logs the field it overwrites, {@link #segment()} and a resize that
 * zero-fills old bytes copy the value once). The function must not call the same map for the
 * same key, to update or to read it (it would wait for its own lock: the call throws
 * {@link IllegalStateException} instead, and the writer's writes are undone as for any other
 * exception it lets out), and must not wait for another thread's read of it:
 * a zero-copy writer changes the value from its first step, so readers of the key wait for it
 * (the legacy functions, which write after they return, do not hold readers up).
 */
public final class OakWriteBuffer {
    private final InternalOakMap<?, ?> map;
    private final WriteScope scope;
    /** The slice being written: the locked one, or a private resized copy. */
    private long target;
    private int length;
    /** The value's length as locked: the bytes a failed function's writes are undone in. */
    private final int lockedLength;
    /**
     * The first field record of the undo log ({@link UndoLog}): {@code offset << 4 | size} (0:
     * none) and the field's previous bits, kept here so that a function that changes one field (a
     * counter) touches no thread-local state. Always the oldest record.
     */
    private long firstField, firstBits;
    /** The rest of the undo log, taken from the thread at the second record or the first copy. */
    private UndoLog undo;
    private boolean done;
    /** The view of {@link #target}'s {@link #length} bytes, made once per size (internal use). */
    private MemorySegment view;
    /**
     * Scope of the views handed out by {@link #segment()}: closed when the function returns, so
     * a view kept past it cannot write into a value that is no longer locked (or no longer this
     * value's memory). Made on first use only.
     */
    private Arena viewScope;

    OakWriteBuffer(InternalOakMap<?, ?> map, WriteScope scope) {
        this.map = map;
        this.scope = scope;
        this.target = scope.ptr;
        this.length = ValueSlices.length(scope.lockWord);
        this.lockedLength = length;
    }

    /** Current size of the value in bytes. */
    public int size() {
        check();
        return length;
    }

    /**
     * A writable view of the value's bytes, valid until the function returns or resizes; using it
     * later throws {@link IllegalStateException} (when native access is enabled, as Floe's launcher
     * and manifest do, and the allocator's region is {@code MAPPED}; otherwise the view is a plain
     * slice of the region, which a misuse after the function can still write through). A view
     * never reaches unmapped memory, even if the map closes while the function runs
     * ({@link dev.floe.memory.Region#scopedView}).
     */
    public MemorySegment segment() {
        check();
        saveLockedValue(); // the caller may write anywhere in the view
        if (!SCOPED_VIEWS) return raw(); // documented: then a kept view stays usable (misuse)
        if (viewScope == null) viewScope = Arena.ofConfined();
        // scopedView, not a bare reinterpret: the view belongs to viewScope, and if the map (with
        // its own allocator) closes meanwhile, the region stays mapped for it until viewScope closes
        return map.values.region.scopedView(raw(), viewScope);
    }

    /**
     * Re-scoping a segment ({@code reinterpret}) is a restricted method: without native access it
     * would print a warning, so then {@link #segment()} hands out the plain view (whose misuse
     * after the function returns Floe cannot detect).
     */
    private static final boolean SCOPED_VIEWS = OakWriteBuffer.class.getModule().isNativeAccessEnabled();

    /** The internal view (never handed out). */
    private MemorySegment raw() {
        MemorySegment v = view;
        if (v == null) view = v = map.values.privateView(target, length);
        return v;
    }

    /**
     * Changes the value's size. Growing keeps the bytes and zero-fills the new ones; shrinking
     * drops the tail. Growing beyond the value's block, or shrinking an out-of-line value (above
     * about 16 KiB) below a quarter of its block, copies the value into a block of the new size,
     * which replaces the old one when the function returns (a move; if the function throws, the
     * value keeps its old block, size and bytes).
     *
     * @throws IllegalArgumentException if {@code newSize} is negative or above the largest value
     */
    public void resize(int newSize) {
        check();
        ValueSlices values = map.values;
        values.checkSize(newSize);
        if (values.fitsInPlace(target, newSize)) {
            if (newSize > length) {
                if (length < lockedLength) saveLockedValue(); // the fill overwrites bytes of the locked value
                values.privateView(target, newSize).asSlice(length).fill((byte) 0);
            }
            length = newSize;
            view = null;
            endViews();
            return;
        }
        long moved = values.allocate(newSize); // throws on budget: nothing changed yet
        map.offHeapBytes.add(map.footprint(moved));
        MemorySegment to = values.privateView(moved, newSize);
        int kept = Math.min(length, newSize);
        to.asSlice(0, kept).copyFrom(values.privateView(target, kept));
        to.asSlice(kept).fill((byte) 0);
        if (target != scope.ptr) map.freePrivate(target);
        target = moved;
        length = newSize;
        view = null;
        endViews(); // a view of the old block must not write into it (a copy of ours is freed above)
    }

    /**
     * The byte at {@code offset} in the value. The typed accessors take any offset (no alignment)
     * and use native byte order; a field outside the value's {@link #size()} bytes throws
     * {@link IndexOutOfBoundsException}, and any call after the function returned
     * {@link IllegalStateException}.
     */
    public byte getByte(int offset) {
        return checked().get(ValueLayout.JAVA_BYTE, offset);
    }

    /** Writes {@code v} at {@code offset} in the value. */
    public void putByte(int offset, byte v) {
        writable(offset, 1).set(ValueLayout.JAVA_BYTE, offset, v);
    }

    /** The {@code short} at {@code offset} in the value, native byte order. */
    public short getShort(int offset) {
        return checked().get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putShort(int offset, short v) {
        writable(offset, 2).set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, v);
    }

    /** The {@code char} at {@code offset} in the value, native byte order. */
    public char getChar(int offset) {
        return checked().get(ValueLayout.JAVA_CHAR_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putChar(int offset, char v) {
        writable(offset, 2).set(ValueLayout.JAVA_CHAR_UNALIGNED, offset, v);
    }

    /** The {@code int} at {@code offset} in the value, native byte order. */
    public int getInt(int offset) {
        return checked().get(ValueLayout.JAVA_INT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putInt(int offset, int v) {
        writable(offset, 4).set(ValueLayout.JAVA_INT_UNALIGNED, offset, v);
    }

    /** The {@code long} at {@code offset} in the value, native byte order. */
    public long getLong(int offset) {
        return checked().get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putLong(int offset, long v) {
        writable(offset, 8).set(ValueLayout.JAVA_LONG_UNALIGNED, offset, v);
    }

    /** The {@code float} at {@code offset} in the value, native byte order. */
    public float getFloat(int offset) {
        return checked().get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putFloat(int offset, float v) {
        writable(offset, 4).set(ValueLayout.JAVA_FLOAT_UNALIGNED, offset, v);
    }

    /** The {@code double} at {@code offset} in the value, native byte order. */
    public double getDouble(int offset) {
        return checked().get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putDouble(int offset, double v) {
        writable(offset, 8).set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, v);
    }

    private MemorySegment checked() {
        check();
        return raw();
    }

    /**
     * The view, for a typed put of {@code size} bytes at {@code offset}: a field of the locked
     * value is logged first, so that a failed function's write can be undone. Writes into a
     * resized copy, or beyond the locked value's bytes, need no record.
     */
    private MemorySegment writable(int offset, int size) {
        MemorySegment v = checked();
        if (target == scope.ptr && offset < lockedLength) {
            long bits = Region.bits(v, offset, size); // out of the value: IndexOutOfBoundsException, as the put
            if (firstField == 0 && undo == null) {
                firstField = (long) offset << 4 | size;
                firstBits = bits;
            } else if (!log().saveField(offset, size, bits)) {
                saveLockedValue(); // the log is full: one copy covers this write and every later one
            }
        }
        return v;
    }

    /** Copies the locked value's bytes (once) before writes the log cannot describe field by field. */
    private void saveLockedValue() {
        if (target == scope.ptr) log().saveWhole(map.values.privateView(scope.ptr, lockedLength));
    }

    private UndoLog log() {
        UndoLog u = undo;
        if (u == null) undo = u = UndoLog.acquire();
        return u;
    }

    /**
     * Writes back what the function's writes overwrote in the locked value: the log's records
     * (its copy, then its fields newest first), then the first field, the oldest.
     */
    private void rollback() {
        long extent = firstField == 0 ? 0 : (firstField >>> 4) + (firstField & 0xF);
        if (undo != null) extent = Math.max(extent, undo.extent());
        if (extent == 0) return;
        MemorySegment value = map.values.privateView(scope.ptr, Math.toIntExact(extent));
        if (undo != null) undo.rollback(value);
        if (firstField != 0) UndoLog.restoreField(value, firstField, firstBits);
    }

    /** Gives the log back to the thread (the value is unlocked or about to be). */
    private void releaseLog() {
        if (undo != null) {
            undo.release();
            undo = null;
        }
    }

    private void check() {
        if (done) throw new IllegalStateException("an OakWriteBuffer is only valid inside its compute function");
    }

    private void end() {
        done = true;
        endViews();
    }

    /** Views handed out by {@link #segment()} die here: at a resize and when the function ends. */
    private void endViews() {
        if (viewScope != null) {
            viewScope.close();
            viewScope = null;
        }
    }

    /**
     * Publishes the result: unlocks the value in place, or installs the resized copy. If the move
     * fails (it frees the copy), the writes made in place before the resize are undone and the
     * caller unlocks the value, unchanged (its {@code releaseAfterFailure}).
     */
    void finish(Object probe) {
        end();
        try {
            if (target == scope.ptr) {
                map.values.unlock(scope, length);
            } else {
                map.values.setPrivateLength(target, length);
                try {
                    map.move(probe, scope, target);
                } catch (Throwable e) {
                    rollback();
                    throw e;
                }
            }
        } finally {
            releaseLog();
        }
    }

    /** The function failed: drops a resized copy, undoes the writes made in place, unlocks with the old length. */
    void abandon() {
        end();
        try {
            if (target != scope.ptr) map.freePrivate(target);
            rollback();
        } finally {
            releaseLog();
            map.values.unlock(scope, lockedLength);
        }
    }
}
