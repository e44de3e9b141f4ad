package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.MemoryStats;
import dev.floe.memory.RegionMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Helpers shared by the Nova tests (the memory layer's {@code TestSupport} is package-private in
 * {@code dev.floe.memory}).
 *
 * <p>Slice contents: {@link #stamp} writes a slice so that it names the safe pointer it was
 * written through — the first 8 bytes are the pointer, every later byte is a function of the
 * pointer and its position — and {@link #owner} reads back which pointer a slice names, or
 * {@link #TORN} if the bytes are not one pointer's pattern.
 */
final class NovaTestSupport {
    /** 1 GiB of address space per allocator keeps the tests cheap. */
    static final long REGION = 1L << 30;
    static final long STRESS_SECONDS = Long.getLong("floe.stress.seconds", 3);
    /** What {@link #owner} returns when the content is not a single pointer's pattern. */
    static final long TORN = -1L;

    private static final AtomicInteger NAMES = new AtomicInteger();

    private NovaTestSupport() {}

    static FloeAllocator.Builder builder(RegionMode mode) {
        return FloeAllocator.builder()
                .regionSize(REGION)
                .mode(mode)
                .jmx(false)
                .name("nova-test-" + mode + "-" + NAMES.incrementAndGet());
    }

    static FloeAllocator open(RegionMode mode) {
        return builder(mode).build();
    }

    /** The byte at {@code index} of a slice written through {@code ptr} (index >= 8). */
    static byte patternByte(long ptr, long index) {
        long x = (ptr ^ (index * 0x9E37_79B9_7F4A_7C15L)) * 0xBF58_476D_1CE4_E5B9L;
        return (byte) (x ^ (x >>> 31) ^ (x >>> 47));
    }

    /** Writes {@code ptr}'s pattern over the whole slice (the pointer, then pattern bytes). */
    static void stamp(MemorySegment slice, long ptr) {
        long n = slice.byteSize();
        if (n >= 8) {
            slice.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, ptr);
            // long-at-a-time where possible, so big slices stay cheap
            long i = 8;
            for (; i + 8 <= n; i += 8) slice.set(ValueLayout.JAVA_LONG_UNALIGNED, i, patternWord(ptr, i));
            for (; i < n; i++) slice.set(ValueLayout.JAVA_BYTE, i, patternByte(ptr, i));
        } else {
            for (long i = 0; i < n; i++) slice.set(ValueLayout.JAVA_BYTE, i, (byte) (ptr >>> (8 * i)));
        }
    }

    /** Eight pattern bytes starting at {@code index}, little endian, as one long. */
    static long patternWord(long ptr, long index) {
        long w = 0;
        for (int k = 7; k >= 0; k--) w = (w << 8) | (patternByte(ptr, index + k) & 0xFF);
        return w;
    }

    /**
     * The pointer a slice of at least 8 bytes names, if every byte of it is that pointer's
     * pattern; else {@link #TORN}.
     */
    static long owner(MemorySegment slice) {
        long n = slice.byteSize();
        long ptr = slice.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long i = 8;
        for (; i + 8 <= n; i += 8) {
            if (slice.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != patternWord(ptr, i)) return TORN;
        }
        for (; i < n; i++) {
            if (slice.get(ValueLayout.JAVA_BYTE, i) != patternByte(ptr, i)) return TORN;
        }
        return ptr;
    }

    /** Live bytes after {@link FloeAllocator#trim()} (the caches hold no live blocks anyway). */
    static long liveBytes(FloeAllocator a) {
        a.trim();
        return a.stats().liveBytes();
    }

    /** Everything deleted and reclaimed: nothing live, nothing waiting. */
    static void assertAllReclaimed(Nova nova) {
        nova.reclaimNow();
        assertEquals(0, nova.waitingSlices(), "deleted slices still waiting after reclaimNow()");
        FloeAllocator a = nova.allocator();
        a.trim();
        MemoryStats s = a.stats();
        assertEquals(0, s.liveBytes(), () -> "live bytes after deleting everything and reclaimNow(): " + s);
    }

    /** The block size the allocator serves for a slice of {@code length} bytes. */
    static long blockSize(FloeAllocator a, long ptr) {
        return a.blockSizeAt(SafePointer.headerOffset(ptr));
    }

    /**
     * A {@link StackOverflowError} out of a Nova operation, explained: with a batch no larger than
     * the number of deleted slices that writers hold, {@code Nova.retire} re-appends the held
     * slices, which seals and drains a batch again, recursively, until the writers leave.
     */
    static Throwable explain(Throwable e, int batch) {
        if (!(e instanceof StackOverflowError)) return e;
        return new AssertionError("a Nova operation recursed until the stack overflowed (batch " + batch
                + "): RetireBatches.add -> seal -> drainBatch -> Nova.retire -> RetireBatches.add ... re-drains "
                + "slices that hazard slots still hold, instead of leaving them for a later drain", e);
    }

    static String describe(long ptr) {
        return SafePointer.toString(ptr) + " (0x" + Long.toHexString(ptr) + ")";
    }
}
