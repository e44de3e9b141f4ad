package dev.floe.bench.defrag;

import java.util.SplittableRandom;

/**
 * The cache of the paper's Redis experiment: integer keys, values in a {@link ValueStore}, a limit
 * on the bytes of the values, and Redis' approximated LRU eviction (sample 5 live keys, evict the
 * least recently used of them; Redis {@code maxmemory-samples 5}), which spreads evictions over
 * the heap the way Redis does. Deterministic for a seed, so every implementation sees the same
 * sequence of allocations and frees. One thread.
 */
final class LruCache {
    static final int SAMPLES = 5;

    private final ValueStore store;
    private final long limit;
    private final long[] ref;
    private final long[] lastUsed;
    private final int[] size;
    private final int[] pos;
    private final int[] live;
    private int liveCount;
    private long used;
    private long clock;
    private long evictions;
    private final SplittableRandom random;

    LruCache(ValueStore store, long limitBytes, int keys, long seed) {
        this.store = store;
        this.limit = limitBytes;
        this.ref = new long[keys];
        this.lastUsed = new long[keys];
        this.size = new int[keys];
        this.pos = new int[keys];
        this.live = new int[keys];
        this.random = new SplittableRandom(seed);
    }

    /** Stores a value of {@code bytes} under {@code key} (replacing any), evicting first to stay under the limit. */
    void put(int key, int bytes) {
        if (size[key] != 0) remove(key);
        while (used + bytes > limit && liveCount > 0) evict();
        ref[key] = store.put(bytes, key);
        size[key] = bytes;
        used += bytes;
        pos[key] = liveCount;
        live[liveCount++] = key;
        lastUsed[key] = ++clock;
    }

    /** Reads the value of {@code key} (must be live) and marks it used. */
    long get(int key) {
        lastUsed[key] = ++clock;
        return store.get(ref[key]);
    }

    /** A live key chosen uniformly. */
    int randomLiveKey() {
        return live[random.nextInt(liveCount)];
    }

    int sizeOf(int key) {
        return size[key];
    }

    private void evict() {
        int victim = live[random.nextInt(liveCount)];
        for (int i = 1; i < SAMPLES; i++) {
            int k = live[random.nextInt(liveCount)];
            if (lastUsed[k] < lastUsed[victim]) victim = k;
        }
        remove(victim);
        evictions++;
    }

    private void remove(int key) {
        store.remove(ref[key]);
        used -= size[key];
        size[key] = 0;
        ref[key] = 0;
        int p = pos[key];
        int last = live[--liveCount];
        live[p] = last;
        pos[last] = p;
    }

    long evictions() {
        return evictions;
    }

    int liveCount() {
        return liveCount;
    }

    long usedBytes() {
        return used;
    }
}
