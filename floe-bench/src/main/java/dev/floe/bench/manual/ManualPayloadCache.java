package dev.floe.bench.manual;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;
import dev.floe.memory.FloeAllocator;

/**
 * {@code manual}: payloads are Snowflake manual objects in a Floe allocator, owned by the cache
 * entry and abandoned when the entry leaves the cache (the paper's modified {@code CacheEntry},
 * figure 5). A request follows the paper's client code (section 3.5) with the shield of the
 * request thread re-pointed for each request: defend the entry's payload if the entry is there,
 * else create a new payload (filled), defend it and put it in the cache; then use the payload
 * through the shield.
 */
final class ManualPayloadCache extends SlidingCache<ManualPayloadCache.ManualEntry> {

    static final class ManualEntry extends SlidingCache.Entry {
        final Owner payload;

        ManualEntry(Owner payload, long now) {
            super(now);
            this.payload = payload;
        }
    }

    private final FloeAllocator allocator;
    private final ManualHeap heap;

    ManualPayloadCache(int payloadBytes, long expirationMs, long offHeapBudget) {
        super(payloadBytes, expirationMs);
        // No MBean: the suite reads the stats directly, and registering one starts the platform
        // MBean server (about 5 MiB resident) that the gc-g1 JVM does not run.
        this.allocator = FloeAllocator.builder().budget(offHeapBudget).name("manual-cache").jmx(false).build();
        this.heap = new ManualHeap(allocator);
    }

    @Override
    Worker worker() {
        Shield s = heap.newShield(); // this thread's shield for all its requests
        return new Worker() {
            @Override
            void requestEntry(int key, long now) {
                ManualEntry e = live(key, now);
                if (e != null && s.tryDefend(e.payload)) {
                    e.touch(now);
                    hits.increment();
                } else {
                    Owner fresh = heap.create(payloadBytes, fillByte(key));
                    s.defend(fresh);
                    insert(key, new ManualEntry(fresh, now));
                    misses.increment();
                }
                for (int i = 0; i < 8; i++) check(key, s.getByte((long) i * (payloadBytes - 1) / 7));
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }

    @Override
    void evict(ManualEntry entry) {
        entry.payload.abandon();
    }

    ManualHeap heap() {
        return heap;
    }

    FloeAllocator allocator() {
        return allocator;
    }

    @Override
    public void close() {
        clear();
        heap.reclaim();
        allocator.close();
    }
}
