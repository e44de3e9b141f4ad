package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeOutOfMemoryException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A map's budget running out. The memory of removed keys and values is retired through Nova and
 * freed when a batch of deletes fills (1,000 by default), so a map that removed fewer than that
 * since it filled its budget had its memory held by the batches: every later insert threw
 * {@link FloeOutOfMemoryException} though the map was empty. The map now frees what the batches
 * hold before it gives up. Under threads that insert, grow (moves), shrink and remove values on
 * small chunks (frequent rebalances): a failed update changes nothing, no entry is lost, no value
 * stays locked, {@code size()} matches the entries.
 */
class OutOfMemoryTest {

    /** A value of {@code size} bytes, each the key's low byte. */
    private static byte[] value(long k, int size) {
        byte[] v = new byte[size];
        Arrays.fill(v, (byte) k);
        return v;
    }

    /** A map filled to its budget, then emptied, holds as much again at once. */
    @Test
    void removedEntriesMakeRoomBeforeABatchOfDeletesFills() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .budget(2 << 20).build()) {
            int held = 0;
            try {
                while (true) m.put((long) held++, value(held, 6000));
            } catch (FloeOutOfMemoryException full) {
                held--;
            }
            assertTrue(held > 100 && held < 1000, held + " values of 6,000 bytes in 2 MiB");
            m.clear();
            for (long k = 0; k < held; k++) m.put(k + 10_000, value(k, 6000));
            assertEquals(held, m.size());
        }
    }

    /**
     * Two threads, each with its own keys (even and odd) and its own model of them: every update
     * that threw {@link FloeOutOfMemoryException} must have left the model's mapping. At the end
     * the map is the union of the models, and a fill after each thread removed its keys fits.
     */
    @Test
    void updatesThatRunOutOfBudgetChangeNothingWhileOthersUpdate() throws Exception {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .maxChunkEntries(8).budget(2 << 20).build()) {
            AtomicReference<Throwable> wrong = new AtomicReference<>();
            AtomicLong failures = new AtomicLong();
            List<TreeMap<Long, byte[]>> models = List.of(new TreeMap<>(), new TreeMap<>());
            long end = System.nanoTime() + 1_500_000_000L;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int parity = t;
                TreeMap<Long, byte[]> model = models.get(t);
                threads.add(Thread.ofPlatform().start(() -> {
                    SplittableRandom r = new SplittableRandom(parity);
                    try {
                        while (System.nanoTime() < end) {
                            long k = 2L * r.nextInt(400) + parity;
                            int size = r.nextInt(4) == 0 ? 6000 : r.nextInt(1, 200);
                            byte[] v = value(k, size);
                            try {
                                switch (r.nextInt(5)) {
                                    case 0 -> {
                                        m.remove(k);
                                        model.remove(k);
                                    }
                                    case 1 -> {
                                        m.compute(k, (kk, old) -> v);
                                        model.put(k, v);
                                    }
                                    case 2 -> {
                                        if (m.zc().computeIfPresent(k, w -> {
                                            w.resize(size);
                                            for (int i = 0; i < size; i++) w.putByte(i, (byte) k);
                                        })) model.put(k, v);
                                    }
                                    default -> {
                                        m.put(k, v);
                                        model.put(k, v);
                                    }
                                }
                            } catch (FloeOutOfMemoryException e) {
                                failures.incrementAndGet();
                            }
                            byte[] now = m.get(k);
                            byte[] expected = model.get(k);
                            if (!Arrays.equals(expected, now)) {
                                throw new AssertionError("key " + k + ": " + (expected == null ? "absent" : expected.length + " bytes")
                                        + " expected, the map has " + (now == null ? "none" : now.length + " bytes"));
                            }
                        }
                    } catch (Throwable e) {
                        wrong.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : threads) t.join(30_000);
            if (wrong.get() != null) throw new AssertionError(wrong.get());
            assertTrue(failures.get() > 0, "the budget never ran out");
            TreeMap<Long, byte[]> all = new TreeMap<>(models.get(0));
            all.putAll(models.get(1));
            assertEquals(all.keySet(), m.keySet());
            for (var e : all.entrySet()) assertArrayEquals(e.getValue(), m.get(e.getKey()), "key " + e.getKey());
            assertEquals(all.size(), m.size());
            assertEquals(recountedFootprint(m), m.offHeapFootprint(), "the footprint estimate against the entries' slices");
            m.clear();
            assertEquals(0, m.size());
            for (long k = 0; k < 200; k++) m.put(k, value(k, 6000)); // 1.2 MB: fits once the rest is reclaimed
            assertEquals(200, m.size());
        }
    }
    /**
     * What the footprint estimate should say, counted from the chunks: the blocks of every linked
     * entry's key (a removed key's too, until a rebalance drops its entry) and of every present
     * value. Only on a quiet map.
     */
    static long recountedFootprint(OakMap<?, ?> m) {
        InternalOakMap<?, ?> core = m.core;
        long sum = 0;
        for (Chunk c = core.firstChunk(); c != null; c = c.next) {
            for (int e = c.next(0); e != 0; e = c.next(e)) {
                sum += core.footprint(c.key(e));
                long v = c.value(e);
                if (Chunk.holdsValue(v) && core.values.isLive(v)) sum += core.footprint(v);
            }
        }
        return sum;
    }
}
