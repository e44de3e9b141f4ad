package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Stream scans and zc gets hand a validated snapshot of each value to the buffer
 * ({@link ValueBuffer#pointTo(long, long)}, {@link ValueSlices#snapshot}), whose first read
 * then validates only after its data loads. Under churn (removes whose slices Nova reclaims and reuses with batch 1, puts,
 * in-place computes), every value a stream scan accepts must belong to its key: the first long
 * encodes the key, and a read of reused or foreign memory would show another key or garbage.
 */
class StreamScanStressTest {
    private static final long KEYS = 512;
    private static final long SECONDS = Long.getLong("floe.stress.seconds", 3);

    private static byte[] valueFor(long key, long n) {
        byte[] v = new byte[64];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.nativeOrder());
        for (int i = 0; i < 8; i++) b.putLong(key << 32 | (n & 0xFFFF_FFFFL));
        return v;
    }

    @Test
    void streamScansNeverAcceptAForeignValue() throws Exception {
        dev.floe.memory.FloeAllocator alloc = dev.floe.memory.FloeAllocator.builder().regionSize(1L << 30).jmx(false).build();
        dev.floe.reclaim.Nova nova = new dev.floe.reclaim.Nova(alloc, 1);
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .nova(nova).maxChunkEntries(8).build()) {
            for (long k = 0; k < KEYS; k++) m.put(k, valueFor(k, 0));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong checked = new AtomicLong();
            Thread writer = new Thread(() -> {
                try {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    long n = 1;
                    while (!stop.get()) {
                        long k = r.nextLong(KEYS);
                        switch (r.nextInt(3)) {
                            case 0 -> m.zc().remove(k);
                            case 1 -> m.zc().put(k, valueFor(k, n++));
                            default -> {
                                long stamp = k << 32 | (n++ & 0xFFFF_FFFFL);
                                m.zc().computeIfPresent(k, w -> {
                                    for (int i = 0; i < 8; i++) w.putLong(8 * i, stamp);
                                });
                            }
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            writer.start();
            long end = System.nanoTime() + SECONDS * 1_000_000_000L / 2;
            try {
                while (System.nanoTime() < end && failure.get() == null) {
                    for (Map.Entry<OakReadBuffer, OakReadBuffer> e : m.zc().entryStreamSet()) {
                        long key;
                        long v;
                        try {
                            key = e.getKey().getLong(0);
                            v = e.getValue().getLong(0);
                        } catch (RemovedValueException gone) {
                            continue; // removed after the cursor looked: allowed
                        }
                        assertEquals(key, v >>> 32, "value of another key accepted for key " + key);
                        checked.incrementAndGet();
                    }
                    for (int i = 0; i < 1000; i++) { // zc get hands its snapshot to the buffer too
                        long key = ThreadLocalRandom.current().nextLong(KEYS);
                        OakReadBuffer b = m.zc().get(key);
                        if (b == null) continue;
                        long v;
                        try {
                            v = b.getLong(0);
                        } catch (RemovedValueException gone) {
                            continue;
                        }
                        assertEquals(key, v >>> 32, "zc get accepted a value of another key for key " + key);
                        checked.incrementAndGet();
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            if (failure.get() != null) throw new AssertionError("writer failed", failure.get());
            assertTrue(checked.get() > KEYS, "scans checked " + checked.get() + " values");
        } finally {
            alloc.close();
        }
    }
}
