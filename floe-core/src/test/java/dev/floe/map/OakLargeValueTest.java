package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Values larger than a Nova slice ({@code ValueSlices}' out-of-line values): they round-trip
 * through every read path, grow and shrink across the boundary, are read consistently while
 * writers rewrite them, and their runs are freed with their slices (the allocator's count of
 * large runs returns to zero).
 */
class OakLargeValueTest {
    private static final long SECONDS = Long.getLong("floe.stress.seconds", 3);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 32).jmx(false)
                .name("oak-large-" + NAMES.incrementAndGet()).build();
    }

    private static OakMap<Long, byte[]> map(Nova nova, int chunk) {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).nova(nova).maxChunkEntries(chunk).build();
    }

    /** {@code size} bytes, a function of {@code seed} and the position. */
    private static byte[] pattern(int size, long seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) ((seed * 31 + i) ^ (i >>> 8));
        return b;
    }

    private static int inlineMax(OakMap<?, ?> m) {
        return m.core.values.inlineMax;
    }

    @Test
    void valuesOfEverySizeRoundTripThroughEveryReadPath() {
        try (FloeAllocator a = allocator(); OakMap<Long, byte[]> m = map(new Nova(a), 8)) {
            int inline = inlineMax(m);
            assertTrue(m.maxValueSize() > 1 << 24, "values may be far larger than a slice: " + m.maxValueSize());
            int[] sizes = {0, 1, inline - 1, inline, inline + 1, 16_384, 65_536 + 3, (1 << 20) + 5};
            for (int i = 0; i < sizes.length; i++) m.put((long) i, pattern(sizes[i], i));
            // the four values above the inline limit are out of line, each in an attached run; runs
            // are always large runs (never size-class blocks, where a stale safe pointer could take
            // their bytes for a header: Nova.allocateWithRun), so the allocator counts four
            assertEquals(4, a.stats().largeRuns());
            for (int i = 0; i < sizes.length; i++) {
                byte[] want = pattern(sizes[i], i);
                assertArrayEquals(want, m.get((long) i), "legacy get of " + sizes[i] + " bytes");
                OakReadBuffer b = m.zc().get((long) i);
                assertEquals(sizes[i], b.size());
                assertArrayEquals(want, b.toByteArray());
                if (sizes[i] >= 8) {
                    long last = MemorySegment.ofArray(want).get(ValueLayout.JAVA_LONG_UNALIGNED, sizes[i] - 8);
                    assertEquals(last, b.getLong(sizes[i] - 8), "typed read of the last word");
                    final OakReadBuffer fb = b;
                    final int size = sizes[i];
                    assertThrows(IndexOutOfBoundsException.class, () -> fb.getLong(size - 7));
                }
            }
            // scans: the stream set's reused buffer (the snapshot read path) and the legacy values
            int i = 0;
            for (OakReadBuffer b : m.zc().valueStreamSet()) {
                if (sizes[i] >= 8) assertEquals(pattern(sizes[i], i)[sizes[i] - 1], b.getByte(sizes[i] - 1));
                i++;
            }
            assertEquals(sizes.length, i);
            i = 0;
            for (byte[] v : m.descendingMap().values()) {
                int k = sizes.length - 1 - i++;
                assertArrayEquals(pattern(sizes[k], k), v);
            }
        }
    }

    @Test
    void valuesGrowAndShrinkAcrossTheInlineLimit() {
        try (FloeAllocator a = allocator(); OakMap<Long, byte[]> m = map(new Nova(a), 8)) {
            m.put(1L, pattern(100, 1));
            OakReadBuffer held = m.zc().get(1L);
            // inline -> out of line: the writer's resize copies into a run; the held buffer follows
            assertTrue(m.zc().computeIfPresent(1L, w -> {
                w.resize(30_000);
                w.putLong(29_992, 0x1122334455667788L);
            }));
            assertEquals(30_000, held.size());
            assertEquals(0x1122334455667788L, held.getLong(29_992));
            byte[] v = m.get(1L);
            byte[] head = pattern(100, 1);
            for (int k = 0; k < 100; k++) assertEquals(head[k], v[k], "kept byte " + k);
            for (int k = 100; k < 29_992; k++) assertEquals(0, v[k], "zero-filled byte " + k);
            assertEquals(1, a.stats().largeRuns());
            // out of line -> a larger run (a move), then shrinking far below it (a move back inline)
            m.zc().computeIfPresent(1L, w -> w.resize(200_000));
            assertEquals(0x1122334455667788L, held.getLong(29_992));
            assertEquals(200_000, held.size());
            m.zc().computeIfPresent(1L, w -> w.resize(16));
            assertEquals(16, held.size());
            assertArrayEquals(java.util.Arrays.copyOf(head, 16), m.get(1L));
            // replace by put: in place when it fits the run, by a move when it does not
            m.put(1L, pattern(50_000, 7));
            assertArrayEquals(pattern(50_000, 7), held.toByteArray());
            m.put(1L, pattern(500_000, 8));
            assertArrayEquals(pattern(500_000, 8), held.toByteArray());
            // legacy compute and merge through out-of-line values
            assertEquals(500_001, m.compute(1L, (k, old) -> java.util.Arrays.copyOf(old, old.length + 1)).length);
            assertEquals(500_001, held.size());
        }
    }

    /**
     * An out-of-line value that shrinks below a quarter of its run moves to a block of its size
     * (by put and by a writer's resize), so that the memory comes back; one that shrinks less, or
     * an inline one, stays in place; a writer that shrinks and then throws leaves the value as it
     * was.
     */
    @Test
    void shrinkingFarBelowTheBlockGivesTheMemoryBack() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakMap<Long, byte[]> m = map(nova, 8);
            long empty = m.offHeapFootprint();
            m.put(1L, pattern(1 << 20, 1));
            m.put(2L, pattern(1 << 20, 2));
            assertEquals(2, a.stats().largeRuns());
            OakReadBuffer held = m.zc().get(1L);
            m.put(1L, pattern(100, 3)); // by put
            m.zc().computeIfPresent(2L, w -> w.resize(100)); // by a writer
            assertArrayEquals(pattern(100, 3), held.toByteArray(), "the held buffer follows the move");
            assertArrayEquals(java.util.Arrays.copyOf(pattern(1 << 20, 2), 100), m.get(2L), "the kept bytes");
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "both megabyte runs were freed");
            assertTrue(m.offHeapFootprint() - empty < 1024, "footprint " + (m.offHeapFootprint() - empty));
            // a quarter or more of the run, or an inline value: in place (the footprint does not move)
            m.put(3L, pattern(40_000, 4));
            long before = m.offHeapFootprint();
            m.put(3L, pattern(20_000, 5)); // the run holds 40,000 bytes or a little more (at most 64 KiB)
            m.zc().computeIfPresent(3L, w -> w.resize(17_000));
            assertEquals(before, m.offHeapFootprint(), "shrinking to a quarter stays in place");
            m.put(4L, pattern(3_000, 6));
            before = m.offHeapFootprint();
            m.put(4L, pattern(8, 7));
            assertEquals(before, m.offHeapFootprint(), "an inline value shrinks in place");
            // a writer that shrinks (a move) and then throws changes nothing
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(3L, w -> {
                w.resize(8);
                throw new IllegalStateException("writer failed");
            }));
            assertArrayEquals(java.util.Arrays.copyOf(pattern(20_000, 5), 17_000), m.get(3L));
            m.close();
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes(), "nothing is left allocated");
        }
    }

    @Test
    void runsAreFreedWithTheirSlicesAndCountInTheFootprint() {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 8);
            OakMap<Long, byte[]> m = map(nova, 8);
            for (long k = 0; k < 50; k++) m.put(k, pattern(100_000, k));
            assertEquals(50, a.stats().largeRuns());
            assertTrue(m.offHeapFootprint() >= 50 * 100_000L, "footprint counts the runs: " + m.offHeapFootprint());
            for (long k = 0; k < 20; k++) assertTrue(m.zc().remove(k));
            for (long k = 20; k < 30; k++) m.put(k, pattern(300_000, k)); // moves: the old runs go too
            nova.reclaimNow();
            assertEquals(30, a.stats().largeRuns(), "removed and moved-from values' runs are freed");
            long footprint = m.offHeapFootprint();
            assertTrue(footprint >= 20 * 100_000L + 10 * 300_000L && footprint < 5_500_000L, "footprint " + footprint);
            m.close();
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "close frees every run");
            assertEquals(0, a.stats().liveBytes(), "and every slice");
        }
    }

    @Test
    void aLargeValueBeyondTheBudgetChangesNothing() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(8L << 20).build()) {
            m.put(1L, pattern(1_000_000, 1));
            assertThrows(FloeOutOfMemoryException.class, () -> m.put(2L, new byte[16 << 20]));
            assertThrows(FloeOutOfMemoryException.class, () -> m.put(1L, new byte[16 << 20]));
            assertThrows(FloeOutOfMemoryException.class,
                    () -> m.zc().computeIfPresent(1L, w -> w.resize(16 << 20)));
            assertEquals(1, m.size());
            assertFalse(m.containsKey(2L));
            assertArrayEquals(pattern(1_000_000, 1), m.get(1L));
            assertThrows(IllegalArgumentException.class, () -> m.zc().computeIfPresent(1L, w -> w.resize(-1)));
        }
    }

    /**
     * Writers rewrite whole values (every word the same stamp, which names the key), grow and
     * shrink them across the inline limit, remove and re-insert them; readers check that every
     * value they read is one stamp throughout and names the key it was read for, through a read
     * buffer's reader and through scans. A read that mixed two writes shows two stamps; a read of
     * a run freed and reused whole by another key's value shows that key.
     */
    @Test
    void readersNeverSeeATornOrForeignLargeValue() throws Exception {
        try (FloeAllocator a = allocator()) {
            Nova nova = new Nova(a, 16);
            OakMap<Long, byte[]> m = map(nova, 8);
            int keys = 16;
            int inline = inlineMax(m) & ~7;
            AtomicLong stamps = new AtomicLong(1);
            for (long k = 0; k < keys; k++) m.put(k, uniform(8 * (k + 1) * 997 % 40_000 + 8, stampFor(k, stamps.getAndIncrement())));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong reads = new AtomicLong(), writes = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (!stop.get() && failure.get() == null) {
                        try {
                            long k = r.nextInt(keys);
                            int size = 8 * (1 + r.nextInt(r.nextBoolean() ? inline / 8 : 12_000));
                            long s = stampFor(k, stamps.getAndIncrement());
                            switch (r.nextInt(4)) {
                                case 0 -> m.put(k, uniform(size, s));
                                case 1 -> m.zc().computeIfPresent(k, w -> {
                                    w.resize(size);
                                    for (int o = 0; o < size; o += 8) w.putLong(o, s);
                                });
                                case 2 -> m.zc().putIfAbsentComputeIfPresent(k, uniform(size, s), w -> {
                                    for (int o = 0; o + 8 <= w.size(); o += 8) w.putLong(o, s);
                                });
                                default -> {
                                    m.zc().remove(k);
                                    m.zc().putIfAbsent(k, uniform(size, s));
                                }
                            }
                            writes.incrementAndGet();
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }, "large-writer-" + t));
            }
            for (int t = 0; t < 2; t++) {
                final boolean scanner = t == 1;
                threads.add(new Thread(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    while (!stop.get() && failure.get() == null) {
                        try {
                            if (scanner) {
                                for (Map.Entry<OakReadBuffer, OakReadBuffer> e : m.zc().entrySet()) {
                                    try {
                                        checkValue(e.getValue().transform(OakLargeValueTest::stampsOf), e.getKey().getLong(0));
                                    } catch (RemovedValueException gone) {
                                        // removed after the scan handed it out: allowed
                                    }
                                    reads.incrementAndGet();
                                }
                                for (Map.Entry<Long, byte[]> e : m.entrySet()) {
                                    checkValue(stampsOf(MemorySegment.ofArray(e.getValue())), e.getKey());
                                    reads.incrementAndGet();
                                }
                            } else {
                                long k = r.nextInt(keys);
                                OakReadBuffer b = m.zc().get(k);
                                if (b == null) continue;
                                try {
                                    checkValue(b.transform(OakLargeValueTest::stampsOf), k);
                                    int n = b.size();
                                    if (n >= 8) b.getLong(n - 8); // a typed read, wherever the value lives now
                                } catch (RemovedValueException | IndexOutOfBoundsException gone) {
                                    // removed, or shrunk between the size and the read: allowed
                                }
                                reads.incrementAndGet();
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }, "large-reader-" + t));
            }
            threads.forEach(Thread::start);
            Thread.sleep(Math.max(1, SECONDS) * 1000);
            stop.set(true);
            for (Thread t : threads) t.join();
            if (failure.get() != null) throw new AssertionError(failure.get());
            assertTrue(reads.get() > 100 && writes.get() > 100, "reads " + reads + ", writes " + writes);
            for (long k = 0; k < keys; k++) {
                byte[] v = m.get(k);
                if (v != null) checkValue(stampsOf(MemorySegment.ofArray(v)), k);
            }
            m.close();
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "no run outlives its slice");
            assertEquals(0, a.stats().liveBytes(), "nothing is left allocated (runs of 16 KiB or less are blocks)");
        }
    }

    private static byte[] uniform(long size, long stamp) {
        byte[] b = new byte[(int) size];
        MemorySegment s = MemorySegment.ofArray(b);
        for (int o = 0; o < size; o += 8) s.set(ValueLayout.JAVA_LONG_UNALIGNED, o, stamp);
        return b;
    }

    /** The distinct words of a value, as {first, other or first} (the reader runs optimistically). */
    private static long[] stampsOf(MemorySegment v) {
        long n = v.byteSize();
        if (n % 8 != 0) return new long[] {-1, -2};
        long first = n == 0 ? 0 : v.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long other = first;
        for (long o = 8; o < n; o += 8) {
            long w = v.get(ValueLayout.JAVA_LONG_UNALIGNED, o);
            if (w != first) other = w;
        }
        return new long[] {first, other};
    }

    /** A stamp that names key {@code key}: the key in the top 16 bits, a sequence number below. */
    private static long stampFor(long key, long seq) {
        return key << 48 | seq;
    }

    /** {@link #checkUniform}, and the stamp names {@code key}: not a value of another key. */
    private static void checkValue(long[] stamps, long key) {
        checkUniform(stamps);
        if (stamps[0] >>> 48 != key) {
            throw new AssertionError("a value of key " + (stamps[0] >>> 48) + " (stamp " + Long.toHexString(stamps[0])
                    + ") was read for key " + key);
        }
    }

    private static void checkUniform(long[] stamps) {
        if (stamps[0] != stamps[1]) {
            throw new AssertionError("a value mixed stamps " + stamps[0] + " and " + stamps[1]);
        }
    }
}
