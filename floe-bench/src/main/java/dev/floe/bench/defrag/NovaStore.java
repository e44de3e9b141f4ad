package dev.floe.bench.defrag;

import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.Nova;
import java.util.Map;

/** Values as fixed Nova slices (they never move), the {@code nova-fixed} implementation. */
final class NovaStore implements ValueStore {
    private final FloeAllocator allocator;
    private final Nova nova;

    NovaStore() {
        allocator = FloeAllocator.builder().name("defrag-bench-nova-" + System.nanoTime()).jmx(false).build();
        nova = new Nova(allocator);
    }

    @Override
    public long put(int size, int key) {
        long p = nova.allocate(size);
        nova.writePrivate(p, (s, k) -> {
            ValueStore.fill(s, k);
            return null;
        }, (long) key);
        return p;
    }

    @Override
    public long get(long ref) {
        return nova.read(ref, ValueStore::checksum);
    }

    @Override
    public void remove(long ref) {
        nova.delete(ref);
    }

    @Override
    public long residentBytes() {
        return allocator.stats().residentBytes();
    }

    @Override
    public long committedBytes() {
        return allocator.stats().committedBytes();
    }

    @Override
    public long liveBytes() {
        return allocator.stats().liveBytes();
    }

    @Override
    public Map<String, Double> extra() {
        return Map.of();
    }

    @Override
    public void close() {
        allocator.close();
    }
}
