package dev.floe.bench.map;

import dev.floe.bench.harness.Labels;

import java.util.List;

/**
 * The workloads of BENCHMARKS.md. Keys are drawn uniformly from the range, twice the fill, so
 * about half of the lookups hit. {@link #grows} marks the workloads that insert more than they
 * remove: their map is built and filled again before every run, so that every run (and every
 * implementation) starts from the same half-full map; the others keep their map across runs.
 */
enum MapWorkload {
    /** 100% put (zero-copy put for Oak). */
    PUT("put", true),
    /** 100% putIfAbsent. */
    PUT_IF_ABSENT("put-if-absent", true),
    /** 100% zero-copy get reading the value's first word. */
    ZC_GET("zc-get", false),
    /** 100% get of a private copy of the value. */
    GET_COPY("get-copy", false),
    /** 100% in-place 8-byte update (put-if-absent-compute-if-present; CSLM's merge). */
    COMPUTE("compute", true),
    /** 95% zc-get, 5% put. */
    MIX95("mix95", true),
    /** 50% put, 50% remove. */
    PUT_DELETE("put-delete", false),
    /** 25% put, 25% remove, 50% zc-get. */
    RW("rw", false),
    /** Ascending scans from a random key. */
    SCAN_ASC("scan-asc", false),
    /** Descending scans from a random key. */
    SCAN_DESC("scan-desc", false),
    /** One thread fills an empty map until the RAM budget runs out. */
    INGEST("ingest", false),
    /** The Oak paper's section 6: a Druid-style rollup index, single-thread ingestion (floe-oak and cslm). */
    ROLLUP("rollup", false);

    private final String label;
    private final boolean grows;

    MapWorkload(String label, boolean grows) {
        this.label = label;
        this.grows = grows;
    }

    /** The fixed name. */
    String label() {
        return label;
    }

    /** Whether the workload grows the map (rebuilt before every run). */
    boolean grows() {
        return grows;
    }

    /** Whether the workload changes the map (reads only: {@code zc-get}, {@code get-copy}, the scans). */
    boolean writes() {
        return switch (this) {
            case ZC_GET, GET_COPY, SCAN_ASC, SCAN_DESC -> false;
            default -> true;
        };
    }

    /** Whether an operation is one scan. */
    boolean scan() {
        return this == SCAN_ASC || this == SCAN_DESC;
    }

    static List<String> labels() {
        return Labels.of(values(), MapWorkload::label);
    }

    static MapWorkload byLabel(String label) {
        return Labels.find(values(), MapWorkload::label, label, "map has no workload");
    }
}
