package dev.floe.bench.somar;

import dev.floe.bench.harness.Collector;
import dev.floe.bench.harness.Labels;
import dev.floe.bench.harness.Machine;
import dev.floe.memory.FloeAllocator;
import dev.floe.reclaim.EpochSomar;
import dev.floe.reclaim.GrowOnlySomar;
import dev.floe.reclaim.HazardErasSomar;
import dev.floe.reclaim.Nova;
import dev.floe.reclaim.Somar;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The implementations of the somar suite by their fixed names, and the one factory that builds a
 * structure for each ({@link #open}).
 */
enum SomarImpl {
    /** Nova, safe pointers as primitive longs in the list nodes. */
    FLOE_NOVA("floe-nova", Kind.SOMAR_LONG),
    /**
     * Nova in magic-number mode (16-byte headers) over an allocator that re-carves emptied
     * superblocks across size classes: what the mode costs next to {@code floe-nova}.
     */
    FLOE_NOVA_MAGIC("floe-nova-magic", Kind.SOMAR_LONG),
    /** Nova, safe pointers wrapped in small objects. */
    FLOE_NOVA_OBJECT("floe-nova-object", Kind.SOMAR_OBJECT),
    /** Epoch-based reclamation behind the SOMAR API ({@link EpochSomar}). */
    FLOE_EBR("floe-ebr", Kind.SOMAR_LONG),
    /** Hazard eras behind the SOMAR API ({@link HazardErasSomar}). */
    FLOE_HE("floe-he", Kind.SOMAR_LONG),
    /** SOMAR that never frees ({@link GrowOnlySomar}). */
    GROW_ONLY("grow-only", Kind.SOMAR_LONG),
    /** On-heap byte[] keys and values, G1. */
    GC_G1("gc-g1", Kind.HEAP),
    /** On-heap byte[] keys and values, ZGC (generational). */
    GC_ZGC("gc-zgc", Kind.HEAP),
    /** On-heap byte[] keys and values, Parallel GC. */
    GC_PARALLEL("gc-parallel", Kind.HEAP),
    /** One shared FFM arena per key and per value. */
    SEGMENT_PER_OBJECT("segment-per-object", Kind.SEGMENT);

    /** Where keys and values live. */
    enum Kind { SOMAR_LONG, SOMAR_OBJECT, HEAP, SEGMENT }

    /**
     * Cap on grow-only's committed bytes beyond the others' off-heap budget, as a share of the
     * machine's memory: it leaks every deleted slice by design (the paper gives it no memory
     * limit), so it gets only what protects the machine; its structure is rebuilt between runs
     * once it has leaked past the off-heap budget.
     */
    private static final double GROW_ONLY_MACHINE_SHARE = 0.25;

    private static final AtomicInteger STRUCTURES = new AtomicInteger();

    private final String label;
    private final Kind kind;

    SomarImpl(String label, Kind kind) {
        this.label = label;
        this.kind = kind;
    }

    String label() {
        return label;
    }

    Kind kind() {
        return kind;
    }

    boolean offHeap() {
        return kind != Kind.HEAP;
    }

    static List<String> labels() {
        return Labels.of(values(), SomarImpl::label);
    }

    static SomarImpl byLabel(String label) {
        return Labels.find(values(), SomarImpl::label, label, "somar has no implementation");
    }

    /** The SOMAR implementation of this name over {@code allocator}. */
    Somar newSomar(FloeAllocator allocator) {
        return switch (this) {
            case FLOE_NOVA, FLOE_NOVA_OBJECT -> new Nova(allocator);
            case FLOE_NOVA_MAGIC -> new Nova(allocator, Nova.DEFAULT_BATCH, true);
            case FLOE_EBR -> new EpochSomar(allocator);
            case FLOE_HE -> new HazardErasSomar(allocator);
            case GROW_ONLY -> new GrowOnlySomar(allocator);
            default -> throw new IllegalStateException(label + " is not a SOMAR implementation");
        };
    }

    /** A new, empty structure of this implementation. */
    BenchMap open(Structure s, Sizing z) {
        int k = Sizing.keyBytes(s);
        int v = Sizing.valueBytes(s);
        return switch (kind) {
            case SOMAR_LONG -> s == Structure.LL ? new SomarLongList(store(z), k, v) : new SomarSkiplist(store(z), k, v);
            case SOMAR_OBJECT -> s == Structure.LL ? new SomarObjectList(store(z), k, v) : new SomarSkiplist(store(z), k, v);
            case HEAP -> s == Structure.LL ? new HeapList(k, v) : new HeapSkiplist(k, v);
            case SEGMENT -> s == Structure.LL ? new SegmentList(k, v) : new SegmentSkiplist(k, v);
        };
    }

    private SomarStore store(Sizing z) {
        FloeAllocator a = FloeAllocator.builder()
                .name("bench-somar-" + label + "-" + STRUCTURES.incrementAndGet())
                .budget(this == GROW_ONLY ? growOnlyCap(z) : z.offheapBudget())
                .recarveEmptySuperblocks(this == FLOE_NOVA_MAGIC)
                .build();
        return new SomarStore(newSomar(a), a);
    }

    /** The collector a gc-* implementation stands for; empty for the others (G1 unless --gc says otherwise). */
    Optional<Collector> collector() {
        return switch (this) {
            case GC_G1 -> Optional.of(Collector.G1);
            case GC_ZGC -> Optional.of(Collector.ZGC);
            case GC_PARALLEL -> Optional.of(Collector.PARALLEL);
            default -> Optional.empty();
        };
    }

    /** Whether a structure should be rebuilt before the next run (grow-only has leaked too much). */
    boolean needsRebuild(BenchMap map, Sizing z) {
        return this == GROW_ONLY && map.offheapCommittedBytes() > z.offheapBudget();
    }

    static long growOnlyCap(Sizing z) {
        long machine = Machine.physicalMemoryBytes();
        return z.offheapBudget() + Math.max(1L << 30, (long) (GROW_ONLY_MACHINE_SHARE * machine));
    }

    /**
     * JVM options of this implementation's worker: its collector and its share of the RAM budget
     * (the gc-* implementations get all of it as heap; the others the on-heap split, the rest
     * being their off-heap budget, enforced by Floe in {@link #store}; segment-per-object has no
     * off-heap cap, since FFM arenas have none).
     */
    List<String> jvmArgs(Sizing z) {
        List<String> args = new ArrayList<>();
        args.add(collector().orElse(Collector.G1).flag());
        long heap = offHeap() ? z.splitHeap() : z.heapBytes();
        args.add("-Xms" + (heap >> 20) + "m");
        args.add("-Xmx" + (heap >> 20) + "m");
        return args;
    }
}
