package dev.floe.reclaim.baseline;

import dev.floe.memory.FloeAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Helpers for the baseline SOMAR tests.
 *
 * <p>Slice contents name the safe pointer they were written through: {@link #stamp} writes the
 * pointer in the first word and a function of the pointer and the position in every later word,
 * and {@link #owner} reads back the pointer a slice names, or {@link #TORN}. A read through
 * {@code p} that succeeds and returns an owner other than {@code p} has seen another incarnation
 * of the block: the safety violation every stress test looks for.
 */
final class BaselineTestSupport {
    static final long REGION = 1L << 30;
    static final long STRESS_SECONDS = Long.getLong("floe.stress.seconds", 3);
    static final long TORN = -1L;
    /** Returned by {@code readOr} / {@code writeOr} on failure in the tests. */
    static final long FAILED = -2L;

    private static final AtomicInteger NAMES = new AtomicInteger();

    private BaselineTestSupport() {}

    static FloeAllocator openAllocator() {
        return FloeAllocator.builder().regionSize(REGION).jmx(false)
                .name("baseline-test-" + NAMES.incrementAndGet()).build();
    }

    /** Word {@code index} (byte offset, multiple of 8, at least 8) of a slice written through {@code ptr}. */
    static long patternWord(long ptr, long index) {
        long x = (ptr ^ (index * 0x9E37_79B9_7F4A_7C15L)) * 0xBF58_476D_1CE4_E5B9L;
        return x ^ (x >>> 31);
    }

    /** Writes {@code ptr}'s pattern over the slice (whole words; slices here are multiples of 8). */
    static void stamp(MemorySegment slice, long ptr) {
        slice.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, ptr);
        for (long i = 8; i + 8 <= slice.byteSize(); i += 8) {
            slice.set(ValueLayout.JAVA_LONG_UNALIGNED, i, patternWord(ptr, i));
        }
    }

    /** The pointer the slice names if all its words are that pointer's pattern, else {@link #TORN}. */
    static long owner(MemorySegment slice) {
        long ptr = slice.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        for (long i = 8; i + 8 <= slice.byteSize(); i += 8) {
            Thread.onSpinWait(); // widen the window in which a reuse could slip in
            if (slice.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != patternWord(ptr, i)) return TORN;
        }
        return ptr;
    }

    /** Awaits the latch inside a lambda (where checked exceptions cannot escape). */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("latch timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether the allocator holds {@code offset} as an allocated block. */
    static boolean isAllocated(FloeAllocator alloc, long offset) {
        try {
            alloc.usableSize(offset);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
