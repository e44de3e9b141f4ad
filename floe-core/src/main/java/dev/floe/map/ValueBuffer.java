package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;

/**
 * A zero-copy value buffer: names the value slice it was created on and follows the value when
 * it moves (grows beyond its slice) through the forward pointer the move leaves behind. If that
 * chain can no longer be followed (a moved-from slice was already reclaimed and reused, which
 * needs a full Nova batch of deletes between the move and this read), the buffer cannot tell a
 * move from a removal and reports {@link RemovedValueException}: a fresh {@code get} finds the
 * value again.
 */
final class ValueBuffer implements OakReadBuffer, ValueSlices.SnapshotSink {
    private final InternalOakMap<?, ?> map;
    /** The value slice (re-pointed by stream iterators, and when the value moves). */
    private long ptr;
    ValueBuffer(InternalOakMap<?, ?> map, long ptr) {
        this.map = map;
        this.ptr = ptr;
    }

    void pointTo(long ptr) {
        this.ptr = ptr;
        this.snapStamp = 0;
    }

    @Override
    public void snapshot(long stamp, long lockWord) {
        this.snapStamp = stamp;
        this.snapLockWord = lockWord;
    }

    /** Points at {@code ptr} with a validated snapshot of it (see {@link Cursor#valueStamp}). */
    void pointTo(long ptr, long stamp, long lockWord) {
        this.ptr = ptr;
        this.snapStamp = stamp;
        this.snapLockWord = lockWord;
    }

    /** A cursor's snapshot of {@link #ptr} (0: none); dropped once it no longer validates. */
    private long snapStamp, snapLockWord;

    @Override
    public int size() {
        return transform(MemorySegment::byteSize).intValue();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T transform(Function<MemorySegment, T> reader) {
        map.checkOpen();
        while (true) {
            long p = ptr;
            Object r = map.values.read(p, reader);
            if (r != ValueSlices.GONE) return (T) r;
            long q = follow(p);
            ptr = q; // racy re-pointing is fine: every holder of p would follow the same way
            snapStamp = 0;
        }
    }

    // Typed getters without a reader object (no allocation per read on a scan).

    private long bits(int offset, int width) {
        map.checkOpen();
        if (snapStamp != 0) {
            try {
                return map.values.readBitsSince(ptr, snapStamp, snapLockWord, offset, width);
            } catch (RuntimeException e) {
                if (e != ValueSlices.GONE_SIGNAL) throw e;
                snapStamp = 0; // changed since the scan looked: read afresh
            }
        }
        while (true) {
            long p = ptr;
            try {
                return map.values.readBits(p, offset, width);
            } catch (RuntimeException e) {
                if (e != ValueSlices.GONE_SIGNAL) throw e;
            }
            ptr = follow(p);
            snapStamp = 0;
        }
    }


    /** Where the value went from slice {@code p}; throws if it was removed. */
    private long follow(long p) {
        long q = map.values.resolve(p);
        if (q == 0 || q == ValueSlices.LOST) {
            // LOST: a slice on the way was reused, so whether the value was removed or moved
            // can no longer be told. Looking the key up again could hand out a value inserted
            // after a removal, so the buffer reports removal: never a wrong value.
            throw new RemovedValueException(q == 0 ? "the value was removed from the map"
                    : "the value was removed from the map, or moved and its old memory reused; get it again");
        }
        return q;
    }

    @Override
    public byte getByte(int offset) {
        return (byte) bits(offset, 1);
    }

    @Override
    public short getShort(int offset) {
        return (short) bits(offset, 2);
    }

    @Override
    public char getChar(int offset) {
        return (char) bits(offset, 2);
    }

    @Override
    public int getInt(int offset) {
        return (int) bits(offset, 4);
    }

    @Override
    public long getLong(int offset) {
        return bits(offset, 8);
    }

    @Override
    public float getFloat(int offset) {
        return Float.intBitsToFloat((int) bits(offset, 4));
    }

    @Override
    public double getDouble(int offset) {
        return Double.longBitsToDouble(bits(offset, 8));
    }

    @Override
    public String toString() {
        return "OakReadBuffer[value]";
    }
}
