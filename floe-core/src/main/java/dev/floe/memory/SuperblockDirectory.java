package dev.floe.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Finds a superblock's descriptor by index arithmetic, {@code (offset - base) >> log2(sbSize)}
 * (no pagemap needed: the region is one range). Two levels of arrays so that a huge, mostly
 * unused region costs almost nothing on heap: pages of 4,096 descriptors are allocated the first
 * time an index in them is installed. Entries are published with release stores and read with
 * acquire loads, so a descriptor is fully constructed before any thread can find it.
 */
final class SuperblockDirectory {
    private static final int PAGE_SHIFT = 12;
    private static final int PAGE_MASK = (1 << PAGE_SHIFT) - 1;
    private static final VarHandle PAGE = MethodHandles.arrayElementVarHandle(Superblock[][].class);
    private static final VarHandle ENTRY = MethodHandles.arrayElementVarHandle(Superblock[].class);

    private final Superblock[][] pages;

    SuperblockDirectory(int capacity) {
        this.pages = new Superblock[(capacity + PAGE_MASK) >>> PAGE_SHIFT][];
    }

    /** The descriptor at {@code index}, or {@code null} if none was ever installed. */
    Superblock get(int index) {
        Superblock[] page = (Superblock[]) PAGE.getAcquire(pages, index >>> PAGE_SHIFT);
        return page == null ? null : (Superblock) ENTRY.getAcquire(page, index & PAGE_MASK);
    }

    void install(Superblock sb) {
        int p = sb.index >>> PAGE_SHIFT;
        Superblock[] page = (Superblock[]) PAGE.getAcquire(pages, p);
        if (page == null) {
            synchronized (this) {
                page = pages[p];
                if (page == null) {
                    page = new Superblock[1 << PAGE_SHIFT];
                    PAGE.setRelease(pages, p, page);
                }
            }
        }
        ENTRY.setRelease(page, sb.index & PAGE_MASK, sb);
    }
}
