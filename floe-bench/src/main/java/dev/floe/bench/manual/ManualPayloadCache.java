package dev.floe.bench.manual;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;
import dev.floe.memory.FloeAllocator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * {@code manual}: payloads are Snowflake manual objects in a Floe allocator, owned by the cache
 * entry and abandoned when the entry leaves the cache (the paper's modified {@code CacheEntry},
 * figure 5; the entry embeds its owner by extending {@link Owner}, as the paper's entry holds
 * the {@code Owner<T>} struct inline). A request follows the paper's client code (section 3.5)
 * with the shield of the request thread re-pointed for each request: defend the entry's payload
 * if the entry is there, else create a new entry with a new payload (filled), defend it and put
 * it in the cache; then use the payload through the shield.
 */
final class ManualPayloadCache extends SlidingCache<ManualPayloadCache.ManualEntry> {

    /**
     * An entry that is its payload's owner: the owner word is a field of the entry, as the
     * paper's {@code CacheEntry} holds its {@code Owner<T>} struct inline (no second object per
     * entry for the collector to trace).
     */
    static final class ManualEntry extends Owner implements SlidingCache.Entry {
        private static final VarHandle LAST_ACCESS = SlidingCache.lastAccessHandle(MethodHandles.lookup(), ManualEntry.class);

        @SuppressWarnings("unused") // through LAST_ACCESS
        private long lastAccess;

        /** An entry with a new payload of {@code bytes} bytes, each {@code fill}. */
        ManualEntry(ManualHeap heap, int bytes, byte fill, long now) {
            super(heap);
            LAST_ACCESS.setOpaque(this, now);
            heap.createInto(this, bytes, fill); // volatile exchange: the fill happens-before any defend
        }

        @Override
        public long lastAccess() {
            return (long) LAST_ACCESS.getOpaque(this);
        }

        @Override
        public void touch(long now) {
            LAST_ACCESS.setOpaque(this, now);
        }
    }

    private final FloeAllocator allocator;
    private final ManualHeap heap;

    ManualPayloadCache(int payloadBytes, long expirationMs, long offHeapBudget) {
        super(payloadBytes, expirationMs);
        // No MBean: the suite reads the stats directly, and registering one starts the platform
        // MBean server (about 5 MiB resident) that the gc-g1 JVM does not run. The region is sized
        // for the budget (its small-object half holds all of it), as the allocator's documentation
        // advises when the budget is known: the superblock directory is one reference per
        // superblock of that half, 8 KiB here against 2 MiB of heap (a humongous array, allocated
        // and zeroed inside the measured run) for the default 256 GiB region.
        this.allocator = FloeAllocator.builder().budget(offHeapBudget).regionSize(regionFor(offHeapBudget))
                .name("manual-cache").jmx(false).build();
        this.heap = new ManualHeap(allocator);
    }

    /** The smallest power of two whose half holds {@code budget} (the allocator's small-object area). */
    static long regionFor(long budget) {
        return Long.highestOneBit(Math.max(budget, 1) * 2 - 1) << 1;
    }

    @Override
    Worker worker() {
        Shield s = heap.newShield(); // this thread's shield for all its requests
        return new Worker() {
            @Override
            void requestEntry(Integer key, long now) {
                ManualEntry e = live(key, now);
                if (e != null && s.tryDefend(e)) {
                    e.touch(now);
                    hits.increment();
                } else {
                    ManualEntry fresh = new ManualEntry(heap, payloadBytes, fillByte(key), now);
                    s.defend(fresh);
                    insert(key, fresh);
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
        entry.abandon();
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
