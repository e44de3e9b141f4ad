package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The value of a key, writable, handed to a zero-copy compute function (the Oak paper's
 * OakWBuffer). Only valid during that call: the map holds the value's lock meanwhile, so the
 * function runs atomically (no other writer, and readers see the value before or after it, never
 * in between) and exactly once.
 *
 * <p>The function may change the size: {@link #resize} within the slice's capacity happens in
 * place; beyond it the map copies the value into a larger slice and installs that one when the
 * function returns. If the function throws, a grown copy is dropped (the old value stays as it
 * was); writes made in place before the exception stay. The function must not call the same map
 * for the same key (it would wait for its own lock).
 */
public final class OakWriteBuffer {
    private final InternalOakMap<?, ?> map;
    private final WriteScope scope;
    /** The slice being written: the locked one, or a private grown copy. */
    private long target;
    private int length;
    private boolean done;

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

    /** A writable view of the value's bytes, valid until the function returns or resizes. */
    public MemorySegment segment() {
        check();
        return map.values.privateView(target, length);
    }

    /**
     * Changes the value's size. Growing keeps the bytes and zero-fills the new ones; shrinking
     * drops the tail.
     *
     * @throws IllegalArgumentException if {@code newSize} is negative or above the largest value
     */
    public void resize(int newSize) {
        check();
        ValueSlices values = map.values;
        if (newSize < 0 || newSize > values.maxValue) {
            throw new IllegalArgumentException("value of " + newSize + " bytes; values hold 0 to " + values.maxValue + " bytes");
        }
        if (newSize <= values.capacity(target)) {
            if (newSize > length) values.privateView(target, newSize).asSlice(length).fill((byte) 0);
            length = newSize;
            return;
        }
        long grown = values.allocate(newSize); // throws on budget: nothing changed yet
        map.offHeapBytes.add(map.footprint(grown));
        MemorySegment to = values.privateView(grown, newSize);
        to.asSlice(0, length).copyFrom(values.privateView(target, length));
        to.asSlice(length).fill((byte) 0);
        if (target != scope.ptr) map.freePrivate(target);
        target = grown;
        length = newSize;
    }

    public byte getByte(int offset) {
        return segment().get(ValueLayout.JAVA_BYTE, offset);
    }

    public void putByte(int offset, byte v) {
        segment().set(ValueLayout.JAVA_BYTE, offset, v);
    }

    public short getShort(int offset) {
        return segment().get(ValueLayout.JAVA_SHORT_UNALIGNED, offset);
    }

    public void putShort(int offset, short v) {
        segment().set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, v);
    }

    public int getInt(int offset) {
        return segment().get(ValueLayout.JAVA_INT_UNALIGNED, offset);
    }

    public void putInt(int offset, int v) {
        segment().set(ValueLayout.JAVA_INT_UNALIGNED, offset, v);
    }

    public long getLong(int offset) {
        return segment().get(ValueLayout.JAVA_LONG_UNALIGNED, offset);
    }

    public void putLong(int offset, long v) {
        segment().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, v);
    }

    public double getDouble(int offset) {
        return segment().get(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset);
    }

    public void putDouble(int offset, double v) {
        segment().set(ValueLayout.JAVA_DOUBLE_UNALIGNED, offset, v);
    }

    private void check() {
        if (done) throw new IllegalStateException("an OakWriteBuffer is only valid inside its compute function");
    }

    /** Publishes the result: unlocks the value in place, or installs the grown copy. */
    void finish(Object probe) {
        done = true;
        if (target == scope.ptr) {
            map.values.unlock(scope, length);
        } else {
            map.values.setPrivateLength(target, length);
            map.move(probe, scope, target);
        }
    }

    /** The function failed: drops a grown copy and unlocks. */
    void abandon() {
        done = true;
        if (target != scope.ptr) {
            map.freePrivate(target);
            map.values.unlock(scope, ValueSlices.length(scope.lockWord));
        } else {
            map.values.unlock(scope, length);
        }
    }
}
