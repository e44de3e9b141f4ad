package dev.floe.bench.map;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import dev.floe.reclaim.SliceWriter;
import dev.floe.reclaim.Somar;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code cslm-offheap}: {@link ConcurrentSkipListMap} with on-heap {@code byte[]} keys whose
 * values live off-heap in Nova slices (Floe's allocator with the off-heap budget); the map value
 * is a small object holding the slice's safe pointer. This isolates off-heap value storage from
 * Oak's chunked layout (the Oak paper's CSLM-OffHeap kept keys off-heap too).
 *
 * <ul>
 *   <li>put: allocate a slice, write it privately, swap it in with {@code put}, delete the
 *       replaced one (a value is never rewritten in place: readers would see torn values).</li>
 *   <li>zc-get: a Nova optimistic read of the first word (no copy); a failed read means a
 *       concurrent delete won, the key counts as absent. get-copy reads the whole slice into a
 *       new array.</li>
 *   <li>compute: an atomic add on the first word inside a Nova write (protected: the slice
 *       cannot be freed under it); on a miss, insert like put-if-absent.</li>
 *   <li>remove: remove, then delete the slice (exactly one thread gets each removed value).</li>
 * </ul>
 */
final class CslmOffHeapStore implements MapUnderTest {

    private static final AtomicInteger STORES = new AtomicInteger();
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    /** The compute: an atomic add of one to the slice's first (8-aligned) word. */
    private static final SliceWriter<Object, Object> INCREMENT = (slice, unused) -> {
        WORD.getAndAdd(slice, 0L, 1L);
        return Boolean.TRUE;
    };

    /** A map value: the safe pointer of its slice. */
    static final class ValueRef {
        final long ptr;

        ValueRef(long ptr) {
            this.ptr = ptr;
        }
    }

    private final FloeAllocator allocator;
    private final Somar nova;
    private final ConcurrentSkipListMap<byte[], ValueRef> map = new ConcurrentSkipListMap<>(BenchKeys.CODEC);
    private final ConcurrentNavigableMap<byte[], ValueRef> descending = map.descendingMap();
    private final int valueBytes;

    CslmOffHeapStore(long offheapBudget, int valueBytes) {
        this.allocator = FloeAllocator.builder().name("bench-map-cslm-offheap-" + STORES.incrementAndGet())
                .budget(offheapBudget).preTouch(offheapBudget).build(); // as the workers' heaps are
        Nova n = new Nova(allocator);
        if (valueBytes > n.maxSlice()) {
            allocator.close();
            throw new IllegalArgumentException("cslm-offheap keeps each value in one Nova slice (at most " + n.maxSlice()
                    + " bytes); run --value-bytes " + valueBytes + " without it (--impl)");
        }
        this.nova = n;
        this.valueBytes = valueBytes;
    }

    private ValueRef newValue(Probe p) {
        long ptr = nova.allocate(valueBytes);
        nova.writePrivate(ptr, Probe.WRITE_VALUE, p);
        return new ValueRef(ptr);
    }

    @Override
    public void put(Probe p) {
        p.nextValue();
        ValueRef old = map.put(p.key.clone(), newValue(p));
        if (old != null) nova.delete(old.ptr);
    }

    @Override
    public boolean putIfAbsent(Probe p) {
        if (map.containsKey(p.key)) return false;
        ValueRef v = newValue(p);
        if (map.putIfAbsent(p.key.clone(), v) == null) return true;
        nova.deletePrivate(v.ptr); // lost the race: it was never shared
        return false;
    }

    @Override
    public boolean zcGet(Probe p) {
        ValueRef v = map.get(p.key);
        return v != null && nova.readOr(v.ptr, p.readWord, null) != null;
    }

    @Override
    public boolean getCopy(Probe p) {
        ValueRef v = map.get(p.key);
        if (v == null) return false;
        byte[] copy = nova.readOr(v.ptr, Probe.COPY, null);
        if (copy == null) return false;
        p.consume(copy);
        return true;
    }

    @Override
    public void compute(Probe p) {
        while (true) {
            ValueRef v = map.get(p.key);
            if (v != null) {
                if (nova.writeOr(v.ptr, INCREMENT, null, null) != null) return;
                continue; // deleted meanwhile: look again
            }
            if (putIfAbsent(p)) return;
        }
    }

    @Override
    public boolean remove(Probe p) {
        ValueRef old = map.remove(p.key);
        if (old == null) return false;
        nova.delete(old.ptr);
        return true;
    }

    @Override
    public int scan(Probe p, int n, boolean descendingOrder) {
        Collection<ValueRef> values = (descendingOrder ? descending : map).tailMap(p.key, true).values();
        int visited = 0;
        for (ValueRef v : values) {
            nova.readOr(v.ptr, p.readWord, null);
            if (++visited == n) break;
        }
        return visited;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long offheapCommittedBytes() {
        return allocator.stats().committedBytes();
    }

    @Override
    public long offheapLiveBytes() {
        return allocator.stats().liveBytes();
    }

    @Override
    public void close() {
        map.clear();
        allocator.close();
    }
}
