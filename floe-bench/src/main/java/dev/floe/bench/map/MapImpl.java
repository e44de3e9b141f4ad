package dev.floe.bench.map;

import dev.floe.bench.harness.Labels;

import java.util.ArrayList;
import java.util.List;

/** The implementations of the map suite by their fixed names, and the factory that opens each. */
enum MapImpl {
    /** Floe's Oak map, zero-copy API (legacy get for get-copy), reclamation on. */
    FLOE_OAK("floe-oak"),
    /** {@code ConcurrentSkipListMap<byte[], byte[]>} on the heap, G1, all the RAM budget as heap. */
    CSLM("cslm"),
    /** {@code ConcurrentSkipListMap} with on-heap keys and values in Nova slices. */
    CSLM_OFFHEAP("cslm-offheap"),
    /** MapDB 3 BTreeMap in direct memory. */
    MAPDB("mapdb"),
    /** Floe's Oak map with reclamation off (leaks removed entries): the put-delete baseline. */
    FLOE_OAK_NORECLAIM("floe-oak-noreclaim");

    private final String label;

    MapImpl(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }

    static List<String> labels() {
        return Labels.of(values(), MapImpl::label);
    }

    static MapImpl byLabel(String label) {
        return Labels.find(values(), MapImpl::label, label, "map has no implementation");
    }

    /** Whether the implementation measures this workload (floe-oak-noreclaim only put-delete). */
    boolean runs(MapWorkload w) {
        if (w == MapWorkload.ROLLUP) return this == FLOE_OAK || this == CSLM;
        return this != FLOE_OAK_NORECLAIM || w == MapWorkload.PUT_DELETE;
    }

    /** Whether every run needs a fresh map (the leaking baseline). */
    boolean freshMapPerRun() {
        return this == FLOE_OAK_NORECLAIM;
    }

    /** A new, empty map of this implementation. */
    MapUnderTest open(MapSizing z) {
        return switch (this) {
            case FLOE_OAK -> new OakStore(z.offheapBudget(), z.offheapBudget(), true, z.keyBytes(), z.valueBytes());
            case FLOE_OAK_NORECLAIM -> new OakStore(z.offheapBudget() + z.noReclaimExtraBytes(), z.offheapBudget(), false,
                    z.keyBytes(), z.valueBytes());
            case CSLM -> new CslmStore(z.valueBytes());
            case CSLM_OFFHEAP -> new CslmOffHeapStore(z.offheapBudget(), z.valueBytes());
            case MAPDB -> new MapDbStore(z.valueBytes());
        };
    }

    /**
     * JVM options of this implementation's workers: G1 everywhere, a fixed heap (pre-touched, so
     * that RSS samples see the heap from the start and no operation pays a first-touch page
     * fault; Floe allocators pre-touch their off-heap budget likewise, see {@link #open}), for
     * cslm the whole RAM budget, for the others the on-heap split (their off-heap budget is enforced by Floe, for MapDB by the JVM's
     * direct-memory cap); the key and value sizes travel as system properties.
     */
    List<String> jvmArgs(MapSizing z) {
        return jvmArgs(z, 0);
    }

    /**
     * {@link #jvmArgs(MapSizing)} with {@code extraHeap} bytes of heap on top of the budget's
     * share, for data of the benchmark's own that every implementation holds alike (the rollup
     * cell's pre-generated input).
     */
    List<String> jvmArgs(MapSizing z, long extraHeap) {
        List<String> args = new ArrayList<>();
        args.add("-XX:+UseG1GC");
        long heap = (this == CSLM ? z.budgetBytes() : z.splitHeap()) + extraHeap;
        args.add("-Xms" + (heap >> 20) + "m");
        args.add("-Xmx" + (heap >> 20) + "m");
        args.add("-XX:+AlwaysPreTouch");
        if (this == MAPDB) {
            args.add("-XX:MaxDirectMemorySize=" + (z.offheapBudget() >> 20) + "m");
            args.add("--sun-misc-unsafe-memory-access=allow"); // MapDB's dependencies use the JDK's unsafe memory access (Floe does not)
        }
        args.addAll(z.systemProperties());
        return args;
    }
}
