package dev.floe.bench.defrag;

import dev.floe.handle.Anchorage;
import dev.floe.handle.AnchorageHeap;
import dev.floe.handle.DefragConfig;
import dev.floe.handle.DefragStats;
import dev.floe.handle.HandleSpace;
import dev.floe.memory.FloeAllocator;
import java.util.LinkedHashMap;
import java.util.Map;

/** Values as handle objects in an {@link AnchorageHeap}, with the {@link Anchorage} service on or off. */
final class HandleStore implements ValueStore {
    private final FloeAllocator allocator;
    private final HandleSpace space;
    private final AnchorageHeap heap;
    private final Anchorage service;

    HandleStore(boolean defrag) {
        allocator = FloeAllocator.builder().name("defrag-bench-handles-" + System.nanoTime()).jmx(false).build();
        heap = new AnchorageHeap(allocator);
        space = new HandleSpace(allocator, heap, HandleSpace.DEFAULT_MAX_HANDLES);
        service = defrag ? Anchorage.start(space, DefragConfig.DEFAULTS) : null;
    }

    @Override
    public long put(int size, int key) {
        long h = space.allocate(size);
        space.write(h, s -> {
            ValueStore.fill(s, key);
            return null;
        });
        return h;
    }

    @Override
    public long get(long ref) {
        return space.read(ref, ValueStore::checksum);
    }

    @Override
    public void remove(long ref) {
        space.free(ref);
    }

    @Override
    public void runBackgroundWorkOnce() {
        if (service != null) service.runPass();
    }

    @Override
    public long residentBytes() {
        return allocator.stats().residentBytes();
    }

    @Override
    public long committedBytes() {
        return heap.committedBytes();
    }

    @Override
    public long liveBytes() {
        return heap.liveBytes();
    }

    @Override
    public Map<String, Double> extra() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("fragmentation_end", heap.fragmentation());
        if (service != null) {
            DefragStats st = service.stats();
            m.put("defrag_passes", (double) st.passes());
            m.put("defrag_objects_moved", (double) st.objectsMoved());
            m.put("defrag_bytes_moved", (double) st.bytesMoved());
            m.put("defrag_pinned_skips", (double) st.pinnedSkips());
            m.put("defrag_cancelled_moves", (double) st.cancelledMoves());
            m.put("defrag_max_pass_ns", (double) st.maxPassNanos());
            m.put("defrag_total_pass_ns", (double) st.totalPassNanos());
            m.put("defrag_loop_pass_cpu_ns", (double) st.loopPassCpuNanos());
        }
        return m;
    }

    @Override
    public void close() {
        if (service != null) service.close();
        space.close();
        allocator.close();
    }
}
