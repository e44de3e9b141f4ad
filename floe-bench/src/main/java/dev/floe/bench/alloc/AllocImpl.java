package dev.floe.bench.alloc;

import dev.floe.bench.harness.Labels;

import java.util.List;

/** The implementations of the alloc suite, by their fixed names. */
public enum AllocImpl {
    /** Floe's allocator ({@code dev.floe.memory.FloeAllocator}). */
    FLOE_ALLOC("floe-alloc"),
    /** glibc {@code malloc}/{@code free} through FFM downcalls. */
    MALLOC("malloc"),
    /** Netty's {@code PooledByteBufAllocator}, direct buffers. */
    NETTY_POOLED("netty-pooled"),
    /** One shared FFM {@code Arena} per block. */
    SEGMENT_PER_OBJECT("segment-per-object");

    private final String label;

    AllocImpl(String label) {
        this.label = label;
    }

    /** The name on the command line and in the JSON. */
    public String label() {
        return label;
    }

    /** Every name, in display order. */
    public static List<String> labels() {
        return Labels.of(values(), AllocImpl::label);
    }

    /** The implementation with this name. */
    public static AllocImpl byLabel(String label) {
        return Labels.find(values(), AllocImpl::label, label, "no alloc implementation");
    }

    /** A fresh allocator for one trial, with room for {@code slots} live blocks. */
    public OffHeapAllocator open(int slots) {
        return switch (this) {
            case FLOE_ALLOC -> new FloeAlloc();
            case MALLOC -> new Malloc();
            case NETTY_POOLED -> new NettyPooled(slots);
            case SEGMENT_PER_OBJECT -> new SegmentPerObject(slots);
        };
    }

    /** JVM options the worker JVM of this implementation needs. */
    public List<String> jvmArgs() {
        return this == NETTY_POOLED ? NettyPooled.JVM_ARGS : List.of();
    }
}
