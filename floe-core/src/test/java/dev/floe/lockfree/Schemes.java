package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/** The four reclamation schemes and the two structures, for parameterized tests. */
final class Schemes {
    private Schemes() {}

    static final List<String> NAMES = List.of("oa-bit", "oa-ver", "nr", "floe-ebr");

    static Reclamation of(String name, FloeAllocator alloc, int limbo) {
        return switch (name) {
            case "oa-bit" -> Reclamation.oaBit(alloc, limbo);
            case "oa-ver" -> Reclamation.oaVer(alloc, limbo);
            case "nr" -> Reclamation.none(alloc);
            case "floe-ebr" -> Reclamation.epochs(alloc, limbo);
            default -> throw new IllegalArgumentException(name);
        };
    }

    static LockFreeLongMap structure(String kind, Reclamation rec, long expected) {
        return switch (kind) {
            case "list" -> new HarrisMichaelList(rec);
            case "hash" -> new MichaelHashTable(rec, expected);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 32).jmx(false).build();
    }
}
