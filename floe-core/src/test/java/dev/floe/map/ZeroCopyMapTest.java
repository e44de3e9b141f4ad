package dev.floe.map;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeOutOfMemoryException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The zero-copy API of {@link OakMap} ({@link ZeroCopyMap}): read buffers (typed getters, checked
 * reads that follow the value and fail once it is removed), in-place computes that run exactly
 * once, write buffers scoped to their function, buffer sets and stream sets, sub-views; and the
 * map's life cycle: close, memory budget, footprint, many small maps, cleanup of dropped maps.
 */
class ZeroCopyMapTest {
    static OakMap<Long, Long> longMap(int chunk) {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(chunk).build();
    }

    static OakMap<Long, byte[]> bytesMap(int chunk) {
        return OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG).maxChunkEntries(chunk).build();
    }

    private static long readLong(OakReadBuffer b) {
        return b.getLong(0);
    }

    // ---- read buffers --------------------------------------------------------------------------

    /** The write buffer has every typed accessor the read buffer has, at unaligned offsets, in native order. */
    @Test
    void writeBufferHasTheReadBuffersTypedAccessors() {
        try (OakMap<Long, byte[]> m = bytesMap(8)) {
            m.put(1L, new byte[40]);
            assertTrue(m.zc().computeIfPresent(1L, w -> {
                w.putByte(0, (byte) -7);
                w.putShort(1, (short) -1234);
                w.putChar(3, '\u00e9');
                w.putInt(5, 0xCAFEBABE);
                w.putLong(9, 0x0123456789ABCDEFL);
                w.putFloat(17, 1.5f);
                w.putDouble(21, -2.25);
                assertEquals('\u00e9', w.getChar(3));
                assertEquals(1.5f, w.getFloat(17));
                assertThrows(IndexOutOfBoundsException.class, () -> w.putChar(39, 'x'));
                assertThrows(IndexOutOfBoundsException.class, () -> w.putFloat(37, 1f));
            }));
            ByteBuffer expected = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
            expected.put(0, (byte) -7).putShort(1, (short) -1234).putChar(3, '\u00e9').putInt(5, 0xCAFEBABE)
                    .putLong(9, 0x0123456789ABCDEFL).putFloat(17, 1.5f).putDouble(21, -2.25);
            assertArrayEquals(expected.array(), m.get(1L));
        }
    }

    @Test
    void getReturnsBufferWithTypedGettersInNativeOrder() {
        try (OakMap<Long, byte[]> m = bytesMap(8)) {
            ByteBuffer bb = ByteBuffer.allocate(40).order(ByteOrder.nativeOrder());
            bb.put(0, (byte) -7).putShort(1, (short) -1234).putChar(3, '\u00e9').putInt(5, 0xCAFEBABE)
                    .putLong(9, 0x0123456789ABCDEFL).putFloat(17, 1.5f).putDouble(21, -2.25).putLong(32, 42L);
            byte[] value = bb.array();
            m.put(1L, value);
            OakReadBuffer b = m.zc().get(1L);
            assertNotNull(b);
            assertEquals(40, b.size());
            assertEquals((byte) -7, b.getByte(0));
            assertEquals((short) -1234, b.getShort(1));
            assertEquals('\u00e9', b.getChar(3));
            assertEquals(0xCAFEBABE, b.getInt(5));
            assertEquals(0x0123456789ABCDEFL, b.getLong(9));
            assertEquals(1.5f, b.getFloat(17));
            assertEquals(-2.25, b.getDouble(21));
            assertEquals(42L, b.getLong(32));
            assertArrayEquals(value, b.toByteArray());
            assertEquals(40L, (long) b.transform(MemorySegment::byteSize));
            assertEquals(0xCAFEBABE, (int) b.transform(s -> s.get(ValueLayout.JAVA_INT_UNALIGNED, 5)));
            assertTrue(b.transform(MemorySegment::isReadOnly), "transform hands out a read-only view");
            assertThrows(RuntimeException.class, () -> b.transform(s -> {
                s.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
                return null;
            }));
            assertEquals((byte) -7, b.getByte(0), "a failed write through transform changed nothing");
            assertThrows(IndexOutOfBoundsException.class, () -> b.getByte(40));
            assertThrows(IndexOutOfBoundsException.class, () -> b.getLong(33));
            assertThrows(IndexOutOfBoundsException.class, () -> b.getInt(-1));
            assertNull(m.zc().get(2L));
            assertThrows(NullPointerException.class, () -> m.zc().get(null));
            // an exception of the reader itself propagates
            IllegalStateException mine = new IllegalStateException("reader failed");
            assertSame(mine, assertThrows(IllegalStateException.class, () -> b.transform(s -> {
                throw mine;
            })));
        }
    }

    @Test
    void emptyValuesAndKeysHaveSizeZero() {
        try (OakMap<String, byte[]> m = OakMap.builder(OakCodecs.STRING, OakCodecs.BYTES, OakCodecs.STRING).maxChunkEntries(4).build()) {
            m.put("", new byte[0]);
            m.put("a", new byte[] {1});
            OakReadBuffer b = m.zc().get("");
            assertEquals(0, b.size());
            assertArrayEquals(new byte[0], b.toByteArray());
            assertThrows(IndexOutOfBoundsException.class, () -> b.getByte(0));
            OakReadBuffer firstKey = m.zc().keySet().iterator().next();
            assertEquals(0, firstKey.size());
            assertArrayEquals(new byte[0], m.get(""));
            assertEquals("", m.firstKey());
        }
    }

    @Test
    void bufferFollowsInPlaceUpdates() {
        try (OakMap<Long, Long> m = longMap(8)) {
            m.put(1L, 5L);
            OakReadBuffer b = m.zc().get(1L);
            OakReadBuffer fromValues = m.zc().values().iterator().next();
            m.put(1L, 6L);
            assertEquals(6L, readLong(b));
            m.zc().put(1L, 7L);
            assertEquals(7L, readLong(b));
            assertEquals(7L, readLong(fromValues));
            assertTrue(m.replace(1L, 7L, 8L));
            assertEquals(8L, m.merge(1L, 0L, Long::sum));
            assertEquals(8L, readLong(b));
            m.zc().putIfAbsentComputeIfPresent(1L, 0L, w -> w.putLong(0, 9L));
            assertEquals(9L, readLong(b));
            assertEquals(9L, readLong(fromValues));
            assertEquals(8, b.size());
        }
    }

    /**
     * A held buffer follows its value through two moves and churn. The map has a Nova of its own
     * (its own budget): the chain of moves can be followed until a full batch of deletes (1,000)
     * reclaims a moved-from slice (documented on {@code ValueBuffer}), and on the shared Nova the
     * batch this thread fills was already part full from earlier tests in this JVM, so whether the
     * churn below completed it depended on test order.
     */
    @Test
    void bufferFollowsGrowthAndShrinking() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .maxChunkEntries(4).budget(64L << 20).build()) {
            for (long k = 0; k < 20; k++) m.put(k, new byte[8]);
            m.put(7L, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            OakReadBuffer b = m.zc().get(7L);
            OakReadBuffer it = m.zc().subMap(7L, true, 7L, true).values().iterator().next();
            assertTrue(m.zc().computeIfPresent(7L, w -> {
                assertEquals(8, w.size());
                w.resize(3000);
                assertEquals(3000, w.size());
                assertEquals(8L, w.getByte(7), "growing keeps the bytes");
                assertEquals(0L, w.getLong(2992), "growing zero-fills");
                w.putLong(2992, 0x1122334455667788L);
            }));
            assertEquals(3000, b.size());
            assertEquals(3000, it.size());
            assertEquals(1, b.getByte(0));
            assertEquals(0x1122334455667788L, b.getLong(2992));
            assertEquals(0x1122334455667788L, it.getLong(2992));
            assertEquals(3000, m.get(7L).length);
            // growth by a legacy put (the value moves again), and churn that may reuse old slices
            byte[] big = new byte[10_000];
            big[9_999] = 99;
            m.put(7L, big);
            for (long k = 100; k < 400; k++) {
                m.put(k, new byte[3000]);
                m.remove(k);
            }
            assertEquals(10_000, b.size());
            assertEquals(99, b.getByte(9_999));
            assertEquals(99, it.getByte(9_999));
            // shrinking: in place
            m.zc().computeIfPresent(7L, w -> w.resize(2));
            assertEquals(2, b.size());
            assertArrayEquals(new byte[2], b.toByteArray());
            m.put(7L, new byte[] {4, 5, 6});
            assertArrayEquals(new byte[] {4, 5, 6}, b.toByteArray());
            assertThrows(IllegalArgumentException.class, () -> m.zc().computeIfPresent(7L, w -> w.resize(m.maxValueSize() + 1)));
            assertThrows(IllegalArgumentException.class, () -> m.zc().computeIfPresent(7L, w -> w.resize(-1)));
            assertArrayEquals(new byte[] {4, 5, 6}, m.get(7L));
            m.zc().computeIfPresent(7L, w -> w.resize(100_000)); // beyond a slice: out of line
            assertEquals(100_000, b.size());
        }
    }

    @Test
    void readingAfterRemoveThrowsRemovedValueException() {
        try (OakMap<Long, Long> m = longMap(4)) {
            for (long k = 0; k < 50; k++) m.put(k, k);
            OakReadBuffer viaGet = m.zc().get(10L);
            OakReadBuffer viaValues = m.zc().tailMap(11L, true).values().iterator().next();
            Map.Entry<OakReadBuffer, OakReadBuffer> viaEntries = m.zc().tailMap(12L, true).entrySet().iterator().next();
            assertEquals(11L, readLong(viaValues));
            assertEquals(12L, readLong(viaEntries.getKey()));
            m.remove(10L);
            assertTrue(m.zc().remove(11L));
            assertFalse(m.zc().remove(11L));
            m.navigableKeySet().remove(12L);
            assertThrows(RemovedValueException.class, () -> viaGet.getLong(0));
            assertThrows(RemovedValueException.class, viaGet::size);
            assertThrows(RemovedValueException.class, viaGet::toByteArray);
            assertThrows(RemovedValueException.class, () -> viaValues.getLong(0));
            assertThrows(RemovedValueException.class, () -> viaEntries.getValue().getLong(0));
            // a removed key's buffer reads its own key until its slice is reclaimed, never another key
            for (long k = 100; k < 3000; k++) {
                m.put(k, k);
                m.remove(k);
            }
            try {
                assertEquals(12L, readLong(viaEntries.getKey()));
            } catch (RemovedValueException expected) {
                // reclaimed: fine
            }
            assertThrows(RemovedValueException.class, () -> viaGet.getLong(0));
        }
    }

    @Test
    void bufferOfRemovedValueStaysRemovedWhenTheKeyComesBack() {
        try (OakMap<Long, Long> m = longMap(4)) {
            m.put(1L, 1L);
            OakReadBuffer old = m.zc().get(1L);
            m.remove(1L);
            m.put(1L, 2L);
            assertThrows(RemovedValueException.class, () -> old.getLong(0), "right after re-insert");
            assertEquals(2L, readLong(m.zc().get(1L)));
        }
    }

    @Test
    void bufferOfRemovedValueStaysRemovedAfterItsSliceIsReclaimedAndTheKeyComesBack() {
        try (OakMap<Long, Long> m = longMap(4)) {
            m.put(1L, 1L);
            OakReadBuffer old = m.zc().get(1L);
            m.remove(1L);
            // churn so the removed slice is reclaimed and reused
            for (long k = 100; k < 5000; k++) {
                m.put(k, k);
                m.remove(k);
            }
            m.put(1L, 3L);
            assertThrows(RemovedValueException.class, () -> old.getLong(0), "after its slice was reclaimed");
            assertEquals(3L, readLong(m.zc().get(1L)));
        }
    }

    // ---- computes ------------------------------------------------------------------------------

    @Test
    void computeIfPresentRunsTheWriterExactlyOnce() {
        try (OakMap<Long, Long> m = longMap(4)) {
            for (long k = 0; k < 30; k++) m.put(k, k);
            AtomicInteger calls = new AtomicInteger();
            assertTrue(m.zc().computeIfPresent(5L, w -> {
                calls.incrementAndGet();
                w.putLong(0, w.getLong(0) * 100);
            }));
            assertEquals(1, calls.get());
            assertEquals(500L, m.get(5L));
            assertTrue(m.zc().computeIfPresent(6L, w -> {
                calls.incrementAndGet();
                w.resize(2000);
                w.putLong(1992, 1L);
                w.resize(8);
            }));
            assertEquals(2, calls.get(), "growing does not re-run the writer");
            assertEquals(6L, m.get(6L));
            assertFalse(m.zc().computeIfPresent(100L, w -> calls.incrementAndGet()));
            m.remove(7L);
            assertFalse(m.zc().computeIfPresent(7L, w -> calls.incrementAndGet()));
            assertEquals(2, calls.get(), "absent keys: the writer never runs");
            assertFalse(m.containsKey(100L));
            assertFalse(m.containsKey(7L));
            assertEquals(29, m.size());
            assertThrows(NullPointerException.class, () -> m.zc().computeIfPresent(null, w -> {}));
            assertThrows(NullPointerException.class, () -> m.zc().computeIfPresent(1L, null));
        }
    }

    @Test
    void putIfAbsentComputeIfPresentInsertsThenComputes() {
        try (OakMap<Long, Long> m = longMap(4)) {
            AtomicInteger calls = new AtomicInteger();
            Consumer<OakWriteBuffer> increment = w -> {
                calls.incrementAndGet();
                w.putLong(0, w.getLong(0) + 1);
            };
            for (int round = 0; round < 5; round++) {
                for (long k = 0; k < 40; k++) {
                    assertEquals(round == 0, m.zc().putIfAbsentComputeIfPresent(k, 100L, increment));
                }
            }
            assertEquals(4 * 40, calls.get());
            for (long k = 0; k < 40; k++) assertEquals(104L, m.get(k));
            assertEquals(40, m.size());
            assertThrows(NullPointerException.class, () -> m.zc().putIfAbsentComputeIfPresent(1L, null, increment));
            assertThrows(NullPointerException.class, () -> m.zc().putIfAbsentComputeIfPresent(1L, 1L, null));
        }
    }

    @Test
    void zeroCopyUpdatesReturnWhetherTheyChangedTheMap() {
        try (OakMap<Long, Long> m = longMap(4)) {
            m.zc().put(1L, 10L);
            assertEquals(10L, m.get(1L));
            m.zc().put(1L, 11L);
            assertEquals(11L, m.get(1L));
            assertFalse(m.zc().putIfAbsent(1L, 12L));
            assertEquals(11L, m.get(1L));
            assertTrue(m.zc().putIfAbsent(2L, 20L));
            assertTrue(m.zc().remove(2L));
            assertFalse(m.zc().remove(2L));
            assertEquals(1, m.size());
            assertEquals(1, m.zc().size());
            assertThrows(NullPointerException.class, () -> m.zc().put(null, 1L));
            assertThrows(NullPointerException.class, () -> m.zc().put(1L, null));
            assertThrows(NullPointerException.class, () -> m.zc().putIfAbsent(1L, null));
            assertThrows(NullPointerException.class, () -> m.zc().remove(null));
        }
    }

    @Test
    void writerExceptionsPropagateAndLeaveTheMapUsable() {
        try (OakMap<Long, byte[]> m = bytesMap(4)) {
            for (long k = 0; k < 20; k++) m.put(k, new byte[] {(byte) k, 0, 0, 0, 0, 0, 0, 0});
            RuntimeException boom = new IllegalStateException("boom");
            // growth then failure: the grown copy is dropped, the value stays as it was
            assertSame(boom, assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(3L, w -> {
                w.resize(5000);
                w.putByte(0, (byte) 33);
                throw boom;
            })));
            assertArrayEquals(new byte[] {3, 0, 0, 0, 0, 0, 0, 0}, m.get(3L));
            // in-place writes made before the failure are undone (FailedRewriteTest)
            assertThrows(IllegalStateException.class, () -> m.zc().computeIfPresent(4L, w -> {
                w.putByte(1, (byte) 44);
                throw boom;
            }));
            assertArrayEquals(new byte[] {4, 0, 0, 0, 0, 0, 0, 0}, m.get(4L));
            // an Error too
            class WriterError extends Error {}
            assertThrows(WriterError.class, () -> m.zc().putIfAbsentComputeIfPresent(5L, new byte[1], w -> {
                throw new WriterError();
            }));
            // and legacy functions
            assertThrows(ArithmeticException.class, () -> m.computeIfPresent(6L, (k, v) -> {
                throw new ArithmeticException();
            }));
            assertThrows(ArithmeticException.class, () -> m.compute(6L, (k, v) -> {
                throw new ArithmeticException();
            }));
            assertThrows(ArithmeticException.class, () -> m.merge(6L, new byte[1], (a, b) -> {
                throw new ArithmeticException();
            }));
            // the locks were released: every key can be read, updated, computed and removed
            for (long k = 0; k < 20; k++) {
                long key = k;
                assertEquals((byte) k, m.get(k)[0]);
                assertTrue(m.zc().computeIfPresent(k, w -> w.putByte(7, (byte) key)));
                assertEquals((byte) k, m.zc().get(k).getByte(7));
                assertNotNull(m.put(k, new byte[] {1}));
            }
            for (long k = 0; k < 20; k += 2) assertNotNull(m.remove(k));
            assertEquals(10, m.size());
            assertEquals(10, m.zc().keySet().size());
        }
    }

    @Test
    void writeBufferIsUnusableAfterItsFunctionReturns() {
        try (OakMap<Long, Long> m = longMap(4)) {
            m.put(1L, 1L);
            AtomicReference<OakWriteBuffer> kept = new AtomicReference<>();
            m.zc().computeIfPresent(1L, kept::set);
            OakWriteBuffer w = kept.get();
            assertThrows(IllegalStateException.class, () -> w.getLong(0));
            assertThrows(IllegalStateException.class, () -> w.putLong(0, 5L));
            assertThrows(IllegalStateException.class, w::size);
            assertThrows(IllegalStateException.class, w::segment);
            assertThrows(IllegalStateException.class, () -> w.resize(16));
            assertThrows(IllegalStateException.class, () -> w.putByte(0, (byte) 1));
            assertThrows(IllegalStateException.class, () -> w.getInt(0));
            assertEquals(1L, m.get(1L));
            // also after a failed function, and after one that grew the value
            assertThrows(IllegalArgumentException.class, () -> m.zc().computeIfPresent(1L, x -> {
                kept.set(x);
                throw new IllegalArgumentException();
            }));
            assertThrows(IllegalStateException.class, () -> kept.get().putLong(0, 5L));
            m.zc().putIfAbsentComputeIfPresent(1L, 0L, x -> {
                kept.set(x);
                x.resize(4000);
            });
            assertThrows(IllegalStateException.class, () -> kept.get().putLong(0, 5L));
            assertEquals(4000, m.zc().get(1L).size());
            assertEquals(1L, m.zc().get(1L).getLong(0));
        }
    }

    // ---- buffer sets ---------------------------------------------------------------------------

    @Test
    void streamSetsReuseOneBufferPerIterator() {
        try (OakMap<Long, Long> m = longMap(4)) {
            for (long k = 0; k < 50; k++) m.put(k, k * 10);
            Iterator<OakReadBuffer> keys = m.zc().keyStreamSet().iterator();
            OakReadBuffer first = keys.next();
            assertEquals(0L, readLong(first));
            for (long k = 1; k < 50; k++) {
                OakReadBuffer b = keys.next();
                assertSame(first, b);
                assertEquals(k, readLong(b));
            }
            assertFalse(keys.hasNext());
            assertThrows(NoSuchElementException.class, keys::next);
            Iterator<OakReadBuffer> values = m.zc().valueStreamSet().iterator();
            OakReadBuffer v0 = values.next();
            for (long k = 1; k < 50; k++) {
                OakReadBuffer b = values.next();
                assertSame(v0, b);
                assertEquals(k * 10, readLong(b));
            }
            Iterator<Map.Entry<OakReadBuffer, OakReadBuffer>> entries = m.zc().entryStreamSet().iterator();
            Map.Entry<OakReadBuffer, OakReadBuffer> e0 = entries.next();
            OakReadBuffer ek = e0.getKey(), ev = e0.getValue();
            for (long k = 1; k < 50; k++) {
                Map.Entry<OakReadBuffer, OakReadBuffer> e = entries.next();
                assertSame(e0, e);
                assertSame(ek, e.getKey());
                assertSame(ev, e.getValue());
                assertEquals(k, readLong(e.getKey()));
                assertEquals(k * 10, readLong(e.getValue()));
            }
            assertThrows(UnsupportedOperationException.class, () -> e0.setValue(ev));
            // separate iterators have separate buffers; the plain sets hand out new ones
            assertNotSame(m.zc().keyStreamSet().iterator().next(), m.zc().keyStreamSet().iterator().next());
            Iterator<OakReadBuffer> plain = m.zc().keySet().iterator();
            OakReadBuffer p0 = plain.next(), p1 = plain.next();
            assertNotSame(p0, p1);
            assertEquals(0L, readLong(p0));
            assertEquals(1L, readLong(p1));
        }
    }

    @Test
    void bufferSetsIterateSortedAndMatchTheMap() {
        try (OakMap<Long, Long> m = longMap(5)) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            Random r = new Random(3);
            for (int i = 0; i < 2000; i++) {
                long k = r.nextInt(300) - 150;
                if (r.nextInt(3) == 0) {
                    assertEquals(o.remove(k) != null, m.zc().remove(k));
                } else {
                    o.put(k, (long) i);
                    m.zc().put(k, (long) i);
                }
            }
            assertEquals(new ArrayList<>(o.keySet()), longs(m.zc().keySet()));
            assertEquals(new ArrayList<>(o.keySet()), longs(m.zc().keyStreamSet()));
            assertEquals(new ArrayList<>(o.values()), longs(m.zc().values()));
            assertEquals(new ArrayList<>(o.values()), longs(m.zc().valueStreamSet()));
            assertEquals(new ArrayList<>(o.entrySet()), entries(m.zc().entrySet()));
            assertEquals(new ArrayList<>(o.entrySet()), entries(m.zc().entryStreamSet()));
            assertEquals(o.size(), m.zc().keySet().size());
            assertEquals(o.size(), m.zc().valueStreamSet().size());
            assertEquals(o.size(), m.zc().entrySet().size());
            assertFalse(m.zc().entryStreamSet().isEmpty());
            assertEquals(new ArrayList<>(o.descendingMap().entrySet()), entries(m.zc().descendingMap().entrySet()));
            assertEquals(new ArrayList<>(o.descendingKeySet()), longs(m.zc().descendingMap().keyStreamSet()));
        }
    }

    @Test
    void bufferSetIteratorsRemove() {
        try (OakMap<Long, Long> m = longMap(4)) {
            ConcurrentSkipListMap<Long, Long> o = new ConcurrentSkipListMap<>();
            for (long k = 0; k < 200; k++) {
                m.put(k, k);
                o.put(k, k);
            }
            List<Collection<?>> sets = List.of(m.zc().keySet(), m.zc().keyStreamSet(), m.zc().values(), m.zc().valueStreamSet(),
                    m.zc().entrySet(), m.zc().entryStreamSet(), m.zc().descendingMap().keyStreamSet(),
                    m.zc().subMap(50L, true, 150L, false).entryStreamSet());
            int mod = 7;
            for (Collection<?> set : sets) {
                Iterator<?> it = set.iterator();
                assertThrows(IllegalStateException.class, it::remove);
                while (it.hasNext()) {
                    Object e = it.next();
                    OakReadBuffer key = e instanceof Map.Entry<?, ?> en ? (OakReadBuffer) en.getKey() : (OakReadBuffer) e;
                    long k = readLong(key); // keys and values are equal in this map
                    if (k % mod == 0) {
                        it.remove();
                        assertThrows(IllegalStateException.class, it::remove);
                        o.remove(k);
                    }
                }
                mod--;
                assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
            }
            assertEquals(o.size(), m.size());
            m.zc().subMap(10L, true, 20L, true).keySet().clear();
            o.subMap(10L, true, 20L, true).clear();
            assertEquals(new ArrayList<>(o.entrySet()), new ArrayList<>(m.entrySet()));
            m.zc().entryStreamSet().clear();
            assertTrue(m.isEmpty());
            assertEquals(0, m.size());
        }
    }

    @Test
    void zeroCopySubAndDescendingViews() {
        try (OakMap<Long, Long> m = longMap(4)) {
            for (long k = 0; k < 100; k++) m.put(k, -k);
            ZeroCopyMap<Long, Long> sub = m.zc().subMap(10L, true, 20L, false);
            assertEquals(range(10, 19), longs(sub.keySet()));
            assertEquals(10, sub.size());
            assertEquals(reversed(range(10, 19)), longs(sub.descendingMap().keyStreamSet()));
            assertEquals(range(10, 19), longs(sub.descendingMap().descendingMap().keySet()));
            assertEquals(range(0, 4), longs(m.zc().headMap(4L, true).keySet()));
            assertEquals(range(96, 99), longs(m.zc().tailMap(95L, false).keySet()));
            assertEquals(reversed(range(15, 19)), longs(sub.descendingMap().headMap(14L, false).keySet()));
            assertEquals(reversed(range(10, 12)), longs(sub.descendingMap().tailMap(12L, true).keySet()));
            assertEquals(reversed(range(11, 13)), longs(m.zc().descendingMap().subMap(13L, true, 10L, false).keySet()));
            assertEquals(range(12, 14), longs(sub.subMap(12L, true, 14L, true).keySet()));
            assertEquals(reversed(range(-19, -10)), longs(sub.values()));
            // out of range: reads see nothing, updates are refused like the legacy views
            assertNull(sub.get(5L));
            assertNull(sub.get(20L));
            assertEquals(-15L, readLong(sub.get(15L)));
            assertFalse(sub.remove(5L));
            assertTrue(m.containsKey(5L));
            assertFalse(sub.computeIfPresent(5L, w -> fail("out of range")));
            assertThrows(IllegalArgumentException.class, () -> sub.put(5L, 1L));
            assertThrows(IllegalArgumentException.class, () -> sub.putIfAbsent(25L, 1L));
            assertThrows(IllegalArgumentException.class, () -> sub.putIfAbsentComputeIfPresent(20L, 1L, w -> {}));
            assertThrows(IllegalArgumentException.class, () -> sub.subMap(5L, true, 15L, true));
            assertThrows(IllegalArgumentException.class, () -> m.zc().subMap(15L, true, 5L, true));
            sub.put(15L, 150L);
            assertEquals(150L, m.get(15L));
            assertTrue(sub.remove(15L));
            assertFalse(m.containsKey(15L));
            assertEquals(9, sub.size());
            assertEquals(99, m.zc().size());
        }
    }

    private static List<Long> longs(Collection<OakReadBuffer> buffers) {
        List<Long> l = new ArrayList<>();
        for (OakReadBuffer b : buffers) l.add(b.getLong(0));
        return l;
    }

    private static List<Map.Entry<Long, Long>> entries(Collection<Map.Entry<OakReadBuffer, OakReadBuffer>> set) {
        List<Map.Entry<Long, Long>> l = new ArrayList<>();
        for (Map.Entry<OakReadBuffer, OakReadBuffer> e : set) l.add(Map.entry(e.getKey().getLong(0), e.getValue().getLong(0)));
        return l;
    }

    private static List<Long> range(long from, long toInclusive) {
        List<Long> l = new ArrayList<>();
        for (long k = from; k <= toInclusive; k++) l.add(k);
        return l;
    }

    private static List<Long> reversed(List<Long> l) {
        return new ArrayList<>(l.reversed());
    }

    // ---- life cycle ----------------------------------------------------------------------------

    @Test
    void everyUseOfAClosedMapWithItsOwnBudgetThrowsIllegalState() {
        closedUseThrows(OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, OakCodecs.LONG).maxChunkEntries(4).budget(4 << 20).build(),
                "own budget");
    }

    @Test
    void everyUseOfAClosedMapOnTheSharedAllocatorThrowsIllegalState() {
        closedUseThrows(longMap(4), "shared allocator");
    }

    private static void closedUseThrows(OakMap<Long, Long> m, String which) {
        for (long k = 0; k < 40; k++) m.put(k, k);
        ConcurrentNavigableMap<Long, Long> sub = m.subMap(5L, 30L);
        ConcurrentNavigableMap<Long, Long> desc = m.descendingMap();
        ZeroCopyMap<Long, Long> zc = m.zc();
        ZeroCopyMap<Long, Long> zcSub = zc.subMap(5L, true, 30L, false);
        OakReadBuffer value = zc.get(3L);
        OakReadBuffer key = zc.keySet().iterator().next();
        Iterator<Long> keys = m.keySet().iterator();
        Iterator<Map.Entry<Long, Long>> subEntries = sub.entrySet().iterator();
        Iterator<Long> descKeys = desc.keySet().iterator();
        Iterator<OakReadBuffer> zcValues = zc.values().iterator();
        Iterator<OakReadBuffer> zcStream = zcSub.keyStreamSet().iterator();
        Iterator<Long> started = m.keySet().iterator();
        started.next();
        Iterator<OakReadBuffer> zcStarted = zc.valueStreamSet().iterator();
        OakReadBuffer streamBuffer = zcStarted.next();
        m.close();
        assertTrue(m.isClosed());
        m.close(); // idempotent
        Map<String, Runnable> uses = new LinkedHashMap<>();
        uses.put("get", () -> m.get(1L));
        uses.put("put", () -> m.put(100L, 1L));
        uses.put("putIfAbsent", () -> m.putIfAbsent(100L, 1L));
        uses.put("remove", () -> m.remove(1L));
        uses.put("remove(k,v)", () -> m.remove(1L, 1L));
        uses.put("replace", () -> m.replace(1L, 2L));
        uses.put("replace(k,o,n)", () -> m.replace(1L, 1L, 2L));
        uses.put("compute", () -> m.compute(1L, (k, v) -> 2L));
        uses.put("computeIfAbsent", () -> m.computeIfAbsent(100L, k -> 2L));
        uses.put("computeIfPresent", () -> m.computeIfPresent(1L, (k, v) -> 2L));
        uses.put("merge", () -> m.merge(1L, 2L, Long::sum));
        uses.put("replaceAll", () -> m.replaceAll((k, v) -> v + 1));
        uses.put("containsKey", () -> m.containsKey(1L));
        uses.put("containsValue", () -> m.containsValue(1L));
        uses.put("size", m::size);
        uses.put("isEmpty", m::isEmpty);
        uses.put("clear", m::clear);
        uses.put("equals", () -> m.equals(Map.of()));
        uses.put("hashCode", m::hashCode);
        uses.put("toString", m::toString);
        uses.put("firstKey", m::firstKey);
        uses.put("lastEntry", m::lastEntry);
        uses.put("ceilingKey", () -> m.ceilingKey(3L));
        uses.put("lowerEntry", () -> m.lowerEntry(3L));
        uses.put("pollFirstEntry", m::pollFirstEntry);
        uses.put("pollLastEntry", m::pollLastEntry);
        uses.put("keySet iteration", () -> m.keySet().iterator());
        uses.put("values iteration", () -> m.values().iterator().hasNext());
        uses.put("entrySet size", () -> m.entrySet().size());
        uses.put("subMap(created before).get", () -> sub.get(6L));
        uses.put("subMap(created before).size", sub::size);
        uses.put("subMap(created before).firstKey", sub::firstKey);
        uses.put("subMap(created after).get", () -> m.subMap(1L, 3L).get(2L));
        uses.put("descendingMap.put", () -> desc.put(1L, 1L));
        uses.put("descendingKeySet.first", () -> m.descendingKeySet().first());
        uses.put("iterator(created before).next", keys::next);
        uses.put("iterator(created before).hasNext+next", () -> {
            subEntries.hasNext();
            subEntries.next();
        });
        uses.put("descending iterator(created before).next", descKeys::next);
        uses.put("iterator(started).next", started::next);
        uses.put("iterator(started).remove", started::remove);
        uses.put("zc.get", () -> zc.get(1L));
        uses.put("zc.put", () -> zc.put(100L, 1L));
        uses.put("zc.putIfAbsent", () -> zc.putIfAbsent(100L, 1L));
        uses.put("zc.remove", () -> zc.remove(1L));
        uses.put("zc.computeIfPresent", () -> zc.computeIfPresent(1L, w -> {}));
        uses.put("zc.putIfAbsentComputeIfPresent", () -> zc.putIfAbsentComputeIfPresent(1L, 1L, w -> {}));
        uses.put("zc.size", zc::size);
        uses.put("zc.keySet iteration", () -> zc.keySet().iterator());
        uses.put("zc.entryStreamSet size", () -> zc.entryStreamSet().size());
        uses.put("zc sub.get", () -> zcSub.get(6L));
        uses.put("zc sub.size", zcSub::size);
        uses.put("zc.descendingMap.get", () -> zc.descendingMap().get(6L));
        uses.put("zc values iterator(created before).next", zcValues::next);
        uses.put("zc stream iterator(created before).hasNext", zcStream::hasNext);
        uses.put("zc stream iterator(started).next", zcStarted::next);
        uses.put("zc stream iterator(started).remove", zcStarted::remove);
        uses.put("value buffer.getLong", () -> value.getLong(0));
        uses.put("value buffer.size", value::size);
        uses.put("value buffer.transform", () -> value.transform(MemorySegment::byteSize));
        uses.put("key buffer.getLong", () -> key.getLong(0));
        uses.put("key buffer.toByteArray", key::toByteArray);
        uses.put("stream buffer.getLong", () -> streamBuffer.getLong(0));
        assertEquals(List.of(), ClosedMapUses.notRefused(uses), which + ": uses of a closed map that did not throw IllegalStateException");
    }

    @Test
    void budgetExhaustedLeavesTheMapConsistentAndRemovalsMakeRoom() {
        try (OakMap<Long, byte[]> m = OakMap.builder(OakCodecs.LONG, OakCodecs.BYTES, OakCodecs.LONG)
                .maxChunkEntries(16).budget(8 << 20).build()) {
            List<Long> inserted = new ArrayList<>();
            FloeOutOfMemoryException oom = null;
            long k = 0;
            while (k < 100_000) {
                try {
                    m.put(k, value(k, 1000));
                } catch (FloeOutOfMemoryException e) {
                    oom = e;
                    break;
                }
                inserted.add(k++);
            }
            assertNotNull(oom, "8 MiB cannot hold 100,000 values of 1000 bytes");
            long failed = k;
            assertTrue(inserted.size() > 1000, "held " + inserted.size());
            assertFalse(m.containsKey(failed), "the failed put changed nothing");
            assertEquals(inserted.size(), m.size());
            // more failures change nothing either: new keys, a growing replace, a growing compute
            assertThrows(FloeOutOfMemoryException.class, () -> m.put(failed, value(failed, 1000)));
            assertThrows(FloeOutOfMemoryException.class, () -> m.zc().putIfAbsent(failed + 1, value(failed, 5000)));
            assertThrows(FloeOutOfMemoryException.class, () -> m.put(0L, value(0, 16_000)));
            assertThrows(FloeOutOfMemoryException.class, () -> m.zc().computeIfPresent(1L, w -> w.resize(16_000)));
            assertEquals(inserted.size(), m.size());
            // updates that need no memory still work
            m.put(2L, value(-2, 1000));
            assertTrue(m.zc().computeIfPresent(3L, w -> w.putLong(0, -3L)));
            for (long key : inserted) {
                byte[] v = m.get(key);
                assertNotNull(v, "key " + key);
                long expect = key == 2 ? -2 : key;
                if (key == 3) assertEquals(-3L, m.zc().get(3L).getLong(0));
                else assertArrayEquals(value(expect, 1000), v, "key " + key);
            }
            assertEquals(new ArrayList<>(inserted), new ArrayList<>(m.keySet()));
            // removing half makes room again
            for (int i = 0; i < inserted.size(); i += 2) assertNotNull(m.remove(inserted.get(i)));
            int room = 0;
            for (long j = failed; j < failed + inserted.size() / 4; j++) {
                m.put(j, value(j, 1000));
                room++;
            }
            assertEquals(inserted.size() - (inserted.size() + 1) / 2 + room, m.size());
            for (int i = 1; i < inserted.size(); i += 2) assertNotNull(m.get(inserted.get(i)));
            assertArrayEquals(value(failed, 1000), m.get(failed));
        }
    }

    private static byte[] value(long k, int size) {
        byte[] b = new byte[size];
        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putLong(0, k).putLong(size - 8, ~k);
        return b;
    }

    @Test
    void footprintGrowsWithPutsAndFallsWithRemoves() {
        try (OakMap<Long, byte[]> m = bytesMap(16)) {
            assertEquals(0, m.offHeapFootprint());
            long last = 0;
            for (long k = 0; k < 2000; k++) {
                m.put(k, new byte[100]);
                if (k % 100 == 99) {
                    long now = m.offHeapFootprint();
                    assertTrue(now > last, "footprint grows: " + last + " -> " + now);
                    last = now;
                }
            }
            assertTrue(last >= 2000L * 108, "at least the keys and values: " + last);
            long peak = last;
            // replacing with the same sizes does not grow it
            for (long k = 0; k < 2000; k++) m.put(k, new byte[100]);
            assertEquals(peak, m.offHeapFootprint());
            for (long k = 0; k < 2000; k += 2) m.remove(k);
            assertTrue(m.offHeapFootprint() < peak, "removes lower it");
        }
    }

    @Test
    void footprintFallsNearZeroAfterClear() {
        try (OakMap<Long, byte[]> m = bytesMap(16)) {
            for (long k = 0; k < 2000; k++) m.put(k, new byte[100]);
            long peak = m.offHeapFootprint();
            m.clear();
            long after = m.offHeapFootprint();
            assertTrue(after < peak / 20, "near 0 after clear: " + after + " (peak " + peak + ")");
            int entries = 0;
            for (Chunk c = m.core.firstChunk(); c != null; c = c.next) {
                for (int e = c.next(0); e != 0; e = c.next(e)) entries++;
            }
            assertTrue(entries < 100, "removed keys are dropped from the chunks: " + entries + " entries left");
        }
    }

    @Test
    void thousandsOfSmallMapsAreCheap() {
        List<OakMap<Long, Long>> maps = new ArrayList<>();
        try {
            for (int i = 0; i < 5000; i++) {
                OakMap<Long, Long> m = longMap(16);
                m.put((long) i, (long) i);
                m.put((long) i + 1, 1L);
                maps.add(m);
            }
            for (int i = 0; i < maps.size(); i += 97) {
                assertEquals(Map.of((long) i, (long) i, (long) i + 1, 1L), maps.get(i));
                assertEquals(2, maps.get(i).size());
            }
        } finally {
            for (OakMap<Long, Long> m : maps) m.close();
        }
        assertTrue(maps.get(4999).isClosed());
    }

    @Test
    void aMapDroppedWithoutCloseIsReleasedByItsCleaner() throws InterruptedException {
        OakMap<Long, Long> m = longMap(8);
        for (long k = 0; k < 100; k++) m.put(k, k);
        InternalOakMap<Long, Long> core = m.core; // the cleaner's state, not the map
        WeakReference<OakMap<Long, Long>> ref = new WeakReference<>(m);
        m = null;
        for (int i = 0; i < 200 && !core.closed; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(ref.get(), "the map became unreachable");
        assertTrue(core.closed, "the cleaner released the dropped map");
    }
}
