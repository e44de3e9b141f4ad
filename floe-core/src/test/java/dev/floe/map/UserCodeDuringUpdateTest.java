package dev.floe.map;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * User code that an insert runs (the comparator's comparisons and order prefix) closes the map, or
 * updates it so that the chunk being inserted into is rebalanced. An insert used to run that code
 * while published on its chunk ({@link Chunk#publish}), so the close's or the rebalance's freeze
 * waited for the calling thread itself, for ever, holding the rebalance lock (found by an audit
 * on 2026-11-24); now only the link's CAS is published. Also: a zero-copy read during which the
 * map is closed reports the close ({@link IllegalStateException}), not a removal.
 */
class UserCodeDuringUpdateTest {

    /** LONG order without order prefixes (every search compares keys), with a one-shot hook that fires inside {@link Chunk#link}. */
    static final class HookInLink implements OakComparator<Long> {
        volatile Runnable hook;

        private void fire() {
            Runnable h = hook;
            if (h == null || !calledFromLink()) return;
            hook = null;
            h.run();
        }

        private static boolean calledFromLink() {
            return StackWalker.getInstance().walk(s -> s.anyMatch(f ->
                    f.getClassName().equals(Chunk.class.getName()) && f.getMethodName().equals("link")));
        }

        @Override public int compareKeys(Long a, Long b) {
            fire();
            return Long.compare(a, b);
        }

        @Override public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            fire();
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }

        @Override public int compareKeyAndSerializedKey(Long k, MemorySegment s) {
            fire();
            return OakCodecs.LONG.compareKeyAndSerializedKey(k, s);
        }
    }

    /** Runs {@code r} on another thread; fails with its stack if it has not ended within 10 s; returns what it threw. */
    private static Throwable endsWithin10s(Runnable r, String what) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                r.run();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.join(10_000);
        if (t.isAlive()) {
            StringBuilder where = new StringBuilder(what + ": still running after 10 s (waiting for itself?), at");
            for (StackTraceElement e : t.getStackTrace()) where.append("\n  ").append(e);
            fail(where.toString());
        }
        return thrown.get();
    }

    @Test
    void comparatorThatClosesTheMapDuringAnInsertEndsItWithIllegalStateException() throws Exception {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(a);
            HookInLink cmp = new HookInLink();
            // a shared allocator: the close frees key by key after freezing every chunk
            OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).nova(nova).build();
            for (long k = 0; k < 10; k++) m.put(k * 10, k);
            cmp.hook = m::close;
            Throwable t = endsWithin10s(() -> m.put(15L, 1L), "a put whose comparator closes the map");
            assertNull(cmp.hook, "the comparator ran inside the link");
            assertInstanceOf(IllegalStateException.class, t);
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes(), "everything the map held (and the insert's key and value) is freed");
        }
    }

    @Test
    void orderPrefixThatClosesTheMapDuringAnInsertEndsItWithIllegalStateException() throws Exception {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(a);
            AtomicReference<Runnable> hook = new AtomicReference<>();
            AtomicReference<Thread> putter = new AtomicReference<>();
            OakComparator<Long> cmp = new OakComparator<>() {
                @Override public int compareKeys(Long x, Long y) {
                    return Long.compare(x, y);
                }

                @Override public int compareSerializedKeys(MemorySegment x, MemorySegment y) {
                    return OakCodecs.LONG.compareSerializedKeys(x, y);
                }

                @Override public int compareKeyAndSerializedKey(Long k, MemorySegment s) {
                    return OakCodecs.LONG.compareKeyAndSerializedKey(k, s);
                }

                @Override public long prefixOf(Long k) {
                    // the put computes the probe's prefix for its search and then for its new entry: close at the second
                    if (k == 15L && Thread.currentThread() == putter.get() && forNewEntry()) {
                        Runnable h = hook.getAndSet(null);
                        if (h != null) h.run();
                    }
                    return OakCodecs.LONG.prefixOf(k);
                }

                @Override public long prefixOfSerialized(MemorySegment s) {
                    return OakCodecs.LONG.prefixOfSerialized(s);
                }
            };
            OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).nova(nova).build();
            for (long k = 0; k < 10; k++) m.put(k * 10, k);
            hook.set(m::close);
            Throwable t = endsWithin10s(() -> {
                putter.set(Thread.currentThread());
                m.put(15L, 1L);
            }, "a put whose order prefix closes the map");
            assertNull(hook.get(), "the prefix was computed for the new entry");
            assertInstanceOf(IllegalStateException.class, t);
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes());
        }
    }

    /** Whether the prefix is computed by doPut itself (for its new entry), not by a search it calls. */
    private static boolean forNewEntry() {
        return StackWalker.getInstance().walk(s -> s.dropWhile(f -> !f.getMethodName().equals("prefixOfProbe"))
                .skip(1).findFirst().map(f -> f.getMethodName().equals("doPut")).orElse(false));
    }

    /**
     * The comparator, inside an insert's link, inserts more keys into the same small chunk so that
     * it fills and is rebalanced: the outer insert must wait for that rebalance and then land in
     * the new chunk, and every key must be present once.
     */
    @Test
    void comparatorThatRebalancesTheChunkDuringAnInsertLetsBothFinish() throws Exception {
        HookInLink cmp = new HookInLink();
        // not closed by try-with-resources: after a hang the close would wait for the stuck rebalance too
        OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).maxChunkEntries(8).budget(8 << 20).build();
        for (long k = 0; k < 4; k++) m.put(k * 100, k);
        cmp.hook = () -> {
            for (long k = 1; k <= 40; k++) m.put(k * 2 + 1, k); // odd keys: fill and split the chunk
        };
        Throwable t = endsWithin10s(() -> m.put(150L, 150L), "a put whose comparator rebalances its chunk");
        try (m) {
            assertNull(t);
            assertNull(cmp.hook, "the comparator ran inside the link");
            assertEquals(150L, m.get(150L));
            assertEquals(4 + 40 + 1, m.size());
            long prev = Long.MIN_VALUE;
            int n = 0;
            for (long k : m.keySet()) {
                assertTrue(k > prev, "sorted, no key twice");
                prev = k;
                n++;
            }
            assertEquals(45, n);
        }
    }

    @Test
    void zeroCopyReadDuringWhichTheMapClosesReportsTheClose() throws Exception {
        try (FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(a);
            for (boolean ofKey : new boolean[] {false, true}) {
                // a shared allocator: the close deletes every key and value, so the read's validation fails
                OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).nova(nova).build();
                for (long k = 0; k < 10; k++) m.put(k, new byte[16]);
                OakReadBuffer b = ofKey ? m.zc().keySet().iterator().next() : m.zc().get(3L);
                Throwable t = endsWithin10s(() -> b.transform(s -> {
                    m.close();
                    return s.get(ValueLayout.JAVA_BYTE, 0);
                }), (ofKey ? "a key" : "a value") + " read that closes the map");
                assertInstanceOf(IllegalStateException.class, t, "the close, not a removal");
                assertInstanceOf(IllegalStateException.class, endsWithin10s(() -> b.getByte(0), "a read after close"));
            }
        }
    }
}
