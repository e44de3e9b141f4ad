package dev.floe.bench.lockfree;

import dev.floe.bench.harness.Mode;
import dev.floe.lockfree.HarrisMichaelList;
import dev.floe.lockfree.LockFreeLongMap;
import dev.floe.lockfree.MichaelHashTable;
import dev.floe.lockfree.Reclamation;
import dev.floe.memory.FloeAllocator;

import java.util.SplittableRandom;

/**
 * The pre-filled structure of a workload in this worker JVM, built once and reused by every run
 * and thread count of the workload (updates keep its size constant), closed — with its allocator
 * — when the worker moves to another workload. A worker JVM hosts one implementation only.
 */
final class Structures {
    private static String current;
    private static FloeAllocator alloc;
    private static LockFreeLongMap map;

    private Structures() {}

    /** Opens the allocator and reclamation scheme an implementation name stands for. */
    static Reclamation scheme(String impl, FloeAllocator a) {
        return switch (impl) {
            case "oa-bit" -> Reclamation.oaBit(a);
            case "oa-ver" -> Reclamation.oaVer(a);
            case "nr" -> Reclamation.none(a);
            case "floe-ebr" -> Reclamation.epochs(a);
            default -> throw new IllegalArgumentException("lockfree has no implementation '" + impl + "'");
        };
    }

    static synchronized LockFreeLongMap get(String impl, LockfreeWorkload w, Mode mode) {
        String key = impl + "/" + w.name() + "/" + mode;
        if (key.equals(current)) return map;
        closeCurrent();
        alloc = FloeAllocator.builder().name("lockfree-" + w.name()).jmx(false).build();
        Reclamation rec = scheme(impl, alloc);
        long size = w.size(mode);
        map = empty(w, rec, size);
        SplittableRandom r = new SplittableRandom(0xF10E);
        long range = 2 * size;
        for (long n = 0; n < size; ) {
            if (map.insert(r.nextLong(range), n)) n++;
        }
        current = key;
        return map;
    }

    /** An empty structure of {@code w}'s kind on {@code rec}: a list, or a table sized for {@code size} keys. */
    static LockFreeLongMap empty(LockfreeWorkload w, Reclamation rec, long size) {
        return w.hash() ? new MichaelHashTable(rec, size) : new HarrisMichaelList(rec);
    }

    static synchronized void closeCurrent() {
        if (map != null) {
            map.close();
            alloc.close();
        }
        map = null;
        alloc = null;
        current = null;
    }

    static synchronized FloeAllocator allocator() {
        return alloc;
    }
}
