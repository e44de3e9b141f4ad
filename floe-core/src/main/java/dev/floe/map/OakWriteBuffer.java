package dev.floe.map;

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
 * of the new size and installs that one when the function returns. If the function throws, such
 * a copy is dropped (the old value stays as it was); writes made in place before the exception
 * stay. The function must not call the same map for the same key (it would wait for its own
 * lock).
 */
public final class OakWriteBuffer {
    private final InternalOakMap<?, ?> map;
    private final WriteScope scope;
    /** The slice being written: the locked one, or a private resized copy. */
    private long target;
    private int length;
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
     * value keeps its old block, size and bytes, except for writes made before the copy).
     *
     * @throws IllegalArgumentException if {@code newSize} is negative or above the largest value
     */
    public void resize(int newSize) {
        check();
        ValueSlices values = map.values;
        values.checkSize(newSize);
        if (values.fitsInPlace(target, newSize)) {
            if (newSize > length) values.privateView(target, newSize).asSlice(length).fill((byte) 0);
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
        checked().set(ValueLayout.JAVA_BYTE, offset, v);
    }

    /** The {@code short} at {@code offset} in the value, native byte order. */
    public short getShort(int offset) {
        return checked().get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putShort(int offset, short v) {
        checked().set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, v);
    }

    /** The {@code char} at {@code offset} in the value, native byte order. */
    public char getChar(int offset) {
        return checked().get(ValueLayout.JAVA_CHAR_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putChar(int offset, char v) {
        checked().set(ValueLayout.JAVA_CHAR_UNALIGNED, offset, v);
    }

    /** The {@code int} at {@code offset} in the value, native byte order. */
    public int getInt(int offset) {
        return checked().get(ValueLayout.JAVA_INT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putInt(int offset, int v) {
        checked().set(ValueLayout.JAVA_INT_UNALIGNED, offset, v);
    }

    /** The {@code long} at {@code offset} in the value, native byte order. */
    public long getLong(int offset) {
        return checked().get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putLong(int offset, long v) {
        checked().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, v);
    }

    /** The {@code float} at {@code offset} in the value, native byte order. */
    public float getFloat(int offset) {
        return checked().get(ValueLayout.JAVA_FLOAT_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putFloat(int offset, float v) {
        checked().set(ValueLayout.JAVA_FLOAT_UNALIGNED, offset, v);
    }

    /** The {@code double} at {@code offset} in the value, native byte order. */
    public double getDouble(int offset) {
        return checked().get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
    }

    /** Writes {@code v} at {@code offset} in the value, native byte order. */
    public void putDouble(int offset, double v) {
        checked().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, v);
    }

    private MemorySegment checked() {
        check();
        return raw();
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

    /** Publishes the result: unlocks the value in place, or installs the resized copy. */
    void finish(Object probe) {
        end();
        if (target == scope.ptr) {
            map.values.unlock(scope, length);
        } else {
            map.values.setPrivateLength(target, length);
            map.move(probe, scope, target);
        }
    }

    /** The function failed: drops a resized copy and unlocks. */
    void abandon() {
        end();
        if (target != scope.ptr) {
            map.freePrivate(target);
            map.values.unlock(scope, ValueSlices.length(scope.lockWord));
        } else {
            map.values.unlock(scope, length);
        }
    }
}
