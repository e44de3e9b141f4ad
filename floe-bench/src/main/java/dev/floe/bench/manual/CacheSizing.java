package dev.floe.bench.manual;

import dev.floe.bench.harness.JvmConfig;
import dev.floe.bench.harness.Mode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sizes of the caching benchmark in one mode (the paper: 4 million requests on a shared cache,
 * keys uniform over a large key space, 1 s sliding expiration).
 *
 * <ul>
 *   <li>{@code --quick}: 300,000 requests per run over 30,000 keys with a 40 ms sliding
 *       expiration (on the driver's virtual clock of one request per microsecond: 40,000
 *       requests, so a run sees seven expiration periods and a steady cache of about 22,000
 *       entries), a 512 MiB RAM budget per JVM.</li>
 *   <li>{@code --full}: the paper's 4,000,000 requests and 1 s sliding expiration, over 500,000
 *       keys (every key cached at once would take 2 GiB of 4 KiB payloads), a 6 GiB RAM budget
 *       per JVM.</li>
 * </ul>
 * The RAM budget is the same for both implementations: {@code gc-g1} gets it all as heap
 * ({@code -Xmx}); {@code manual} gets a quarter as heap (entries, map) and the rest as the
 * Floe allocator's off-heap budget (payloads); {@code --heap} and {@code --offheap}
 * ({@link JvmConfig}) set the two parts instead, gc-g1 getting their sum.
 *
 * @param requests     requests per run, split evenly between the threads
 * @param keys         size of the key space
 * @param expirationMs sliding expiration: an entry not read for this long is removed
 * @param manualHeapBytes    {@code -Xmx} of the manual implementation (entries, map)
 * @param manualOffHeapBytes its Floe allocator's off-heap budget (payloads)
 * @param warmupMinSeconds the JIT warm-up before the measured run in each JVM ({@link dev.floe.bench.harness.JitWarmUp})
 *                         lasts at least this long, then until the JIT is quiet ...
 * @param warmupMaxSeconds ... or at most this long: 0.5–3 s in quick mode, whose runs are short
 *                         enough for the JIT to matter; one round in full mode, whose
 *                         4M-request runs amortize it
 */
record CacheSizing(int requests, int keys, long expirationMs, long manualHeapBytes, long manualOffHeapBytes,
                   double warmupMinSeconds, double warmupMaxSeconds) {
    private static final long MIB = 1L << 20;

    static CacheSizing of(Mode mode) {
        return of(mode, JvmConfig.DEFAULT);
    }

    /** The sizes of {@code mode}, with the heap and off-heap budget of {@code jvm} where it sets them. */
    static CacheSizing of(Mode mode, JvmConfig jvm) {
        long budget = mode == Mode.FULL ? 6144 * MIB : 512 * MIB;
        long heap = jvm.heapOr(budget / 4 / MIB * MIB), offheap = jvm.offheapOr(budget - budget / 4 / MIB * MIB);
        return mode == Mode.FULL
                ? new CacheSizing(4_000_000, 500_000, 1_000, heap, offheap, 0, 0)
                : new CacheSizing(300_000, 30_000, 40, heap, offheap, 0.5, 3.0);
    }

    /** The RAM budget of one JVM: gc-g1's heap. */
    long budgetBytes() {
        return manualHeapBytes + manualOffHeapBytes;
    }

    /** Requests of one warm-up round: half a run. */
    int warmupRequests() {
        return requests / 2;
    }

    /** Keys of the warm-up: an eighth of the key space, so its cache stays small. */
    int warmupKeys() {
        return Math.max(1, keys / 8);
    }

    /**
     * Expiration of the warm-up cache: a tenth of the real one, so that with an eighth of the
     * keys the warm-up still misses often and compiles the allocate / evict paths too.
     */
    long warmupExpirationMs() {
        return Math.max(1, expirationMs / 10);
    }

    Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", requests);
        m.put("keys", keys);
        m.put("expiration_ms", expirationMs);
        m.put("warmup_min_seconds", warmupMinSeconds());
        m.put("warmup_max_seconds", warmupMaxSeconds());
        m.put("warmup_requests", warmupRequests());
        m.put("warmup_keys", warmupKeys());
        m.put("warmup_expiration_ms", warmupExpirationMs());
        m.put("budget_bytes", budgetBytes());
        m.put("manual_heap_bytes", manualHeapBytes());
        m.put("manual_offheap_bytes", manualOffHeapBytes());
        return m;
    }
}
