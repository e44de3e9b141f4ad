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
final class ValueBuffer implements OakReadBuffer {
    private final InternalOakMap<?, ?> map;
    /** The value slice (re-pointed by stream iterators, and when the value moves). */
    private long ptr;
    ValueBuffer(InternalOakMap<?, ?> map, long ptr, long lockWord) {
        this.map = map;
        this.ptr = ptr;
        this.snapLockWord = lockWord;
    }

    /**
     * Points at {@code ptr}; {@code lockWord} is a {@link ValueSlices#snapshot} of it taken by the
     * caller (see {@link Cursor#valueLockWord}), or 0 for none.
     */
    void pointTo(long ptr, long lockWord) {
        this.ptr = ptr;
        this.snapLockWord = lockWord;
    }

    /**
     * A snapshot of {@link #ptr}'s lock word taken by whoever pointed the buffer (0: none), so the
     * first read continues it instead of starting afresh; dropped once it no longer holds.
     */
    private long snapLockWord;

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
            snapLockWord = 0;
        }
    }

    // Typed getters without a reader object (no allocation per read on a scan).

    private long bits(int offset, int width) {
        map.checkOpen();
        long lw = snapLockWord;
        if (lw != 0) {
            try {
                return map.values.readBitsSince(ptr, lw, offset, width);
            } catch (RuntimeException e) {
                if (e != ValueSlices.GONE_SIGNAL) throw e;
                snapLockWord = 0; // changed since the snapshot: read afresh
            }
        }
        return bitsAfresh(offset, width);
    }

    /** {@link #bits} without a snapshot: a full read, following moves. */
    private long bitsAfresh(int offset, int width) {
        while (true) {
            long p = ptr;
            try {
                return map.values.readBits(p, offset, width);
            } catch (RuntimeException e) {
                if (e != ValueSlices.GONE_SIGNAL) throw e;
            }
            ptr = follow(p);
        }
    }


    /**
     * Where the value went from slice {@code p}; throws if it was removed: IllegalStateException
     * when the map was closed meanwhile (its close removes every key, but a read that overlapped
     * the close reports the close, as any use after it does), else RemovedValueException.
     */
    private long follow(long p) {
        long q = map.values.resolve(p);
        if (q == 0 || q == ValueSlices.LOST) {
            map.checkOpen();
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
