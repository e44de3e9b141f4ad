package dev.floe.jcstress;

import dev.floe.handle.HandleSpace;
import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;
import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The allocator every test in one forked VM shares: one small mapped region (1 GiB of address
 * space, no MBean), created once. A region per state object would cost an {@code mmap} each and
 * jcstress creates millions of states.
 *
 * <p>One {@link Nova} per test class, on this allocator. jcstress runs each test class in its own
 * VM, so in practice one Nova per allocator; several would also be safe since the version clock
 * is per allocator (before commit 2f10563 each Nova had its own clock and two Novas on one
 * allocator issued the same versions, see {@code NovaMisuseTest} in floe-core).
 */
final class Floe {
    static final FloeAllocator ALLOC = FloeAllocator.builder()
            .regionSize(1L << 30)
            .mode(RegionMode.MAPPED)
            .name("jcstress")
            .jmx(false)
            .build();

    /** Bytes of every slice in these tests: two words. */
    static final long LENGTH = 16;

    private Floe() {}

    /**
     * Snowflake tests: defends {@code owner} with a new shield of {@code heap} and reads both
     * words of its object: 0 if the owner was empty, 1 if both read {@code word}, 2 otherwise
     * (another object's bytes: a use after free).
     */
    static int defendAndRead(ManualHeap heap, Owner owner, long word) {
        try (Shield s = heap.newShield()) {
            if (!s.tryDefend(owner)) return 0;
            long a = s.getLong(0);
            long b = s.getLong(8);
            return a == word && b == word ? 1 : 2;
        }
    }

    /** Snowflake tests: 1 if both words of {@code owner}'s object still hold {@code word}, else 0; then abandons it. */
    static int holdsThenAbandon(Owner owner, long word) {
        int r;
        try (Shield s = owner.defend()) {
            r = s.getLong(0) == word && s.getLong(8) == word ? 1 : 0;
        }
        owner.abandon();
        return r;
    }

    /** Allocates a slice whose two words hold its own pointer (written privately). */
    static long allocateNamed(Nova nova) {
        long p = nova.allocate(LENGTH);
        nova.writePrivate(p, Floe::name, p);
        return p;
    }

    /** Bytes of the attached runs in these tests: beyond the largest slice, so a large allocator block. */
    static final long RUN = 20_000;

    /**
     * Allocates a slice of {@link #LENGTH} bytes with an attached run of {@link #RUN} bytes whose
     * first two words hold the slice's pointer (plain stores, published with the pointer like
     * any private write: here by the State's final field).
     */
    static long allocateWithNamedRun(Nova nova) {
        long p = nova.allocateWithRun(LENGTH, RUN);
        long run = nova.runOf(p, nova.beginRead(p));
        ALLOC.region().setLongPlain(run, p);
        ALLOC.region().setLongPlain(run + 8, p);
        return p;
    }

    /** Allocates a handle object of {@link #LENGTH} bytes whose first word holds {@code stamp}. */
    static long allocateStamped(HandleSpace space, long stamp) {
        long h = space.allocate(LENGTH);
        space.write(h, s -> {
            s.set(ValueLayout.JAVA_LONG, 0, stamp);
            return null;
        });
        return h;
    }

    static Void name(MemorySegment s, Long p) {
        s.set(ValueLayout.JAVA_LONG, 0, p);
        s.set(ValueLayout.JAVA_LONG, 8, p);
        return null;
    }
}
