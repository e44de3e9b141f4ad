package dev.floe.bench.manual;

import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.Labels;

import java.util.List;

/** The implementations of the {@code manual} suite, by their names in BENCHMARKS.md. */
enum CacheImpl {
    /** Payloads off-heap as Snowflake manual objects, owner in the entry. */
    MANUAL("manual"),
    /** Payloads as {@code byte[]} under G1. */
    GC_G1("gc-g1");

    private final String label;

    CacheImpl(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    static List<String> labels() {
        return Labels.of(values(), CacheImpl::label);
    }

    static CacheImpl byLabel(String label) {
        return Labels.find(values(), CacheImpl::label, label, "no implementation");
    }

    /** Worker JVM options: G1 for both (unless --gc says otherwise for manual), and the same RAM budget (see {@link CacheSizing}). */
    List<String> jvmArgs(CacheSizing z) {
        long heap = this == GC_G1 ? z.budgetBytes() : z.manualHeapBytes();
        return List.of(Collector.G1.flag(), "-Xmx" + (heap >> 20) + "m");
    }

    /** A cache with {@code payloadBytes} payloads and the given sliding expiration. */
    SlidingCache<?> open(CacheSizing z, int payloadBytes, long expirationMs) {
        return this == MANUAL
                ? new ManualPayloadCache(payloadBytes, expirationMs, z.manualOffHeapBytes())
                : new HeapPayloadCache(payloadBytes, expirationMs);
    }
}
