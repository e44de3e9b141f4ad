package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import dev.floe.memory.Region;

/**
 * What the OA jcstress tests of one forked VM share: one small mapped region (1 GiB of address
 * space, no MBean), created once, and the value a reused block is given. jcstress creates
 * millions of states, so each state allocates its few blocks here and its arbiter frees them.
 */
final class OaFixture {
    static final FloeAllocator ALLOC = FloeAllocator.builder()
            .regionSize(1L << 30)
            .mode(RegionMode.MAPPED)
            .name("jcstress-oa")
            .jmx(false)
            .build();
    static final Region REGION = ALLOC.region();

    /** The key of the node the tests retire, and the value it holds while it is in the structure. */
    static final long KEY = 42;
    static final long VALUE = 7;
    /** The value the reclaimer writes into the freed node's block once it has allocated it again. */
    static final long REUSED = 0xBAD;

    private OaFixture() {}

    /**
     * The reclaimer's second half: allocates a node-sized block right after the reclamation pass
     * (same thread, same cache stripe, so usually the block just freed) and writes into it what a
     * new node of another structure would hold: key {@link #KEY}, value {@link #REUSED}, an
     * unmarked end-of-list next word, a new stamp. Returns the block.
     */
    static long reuseNodeBlock() {
        long b = ALLOC.allocate(HarrisMichaelCore.NODE_BYTES);
        REGION.setLongPlain(b + HarrisMichaelCore.KEY, KEY);
        REGION.setLongPlain(b + HarrisMichaelCore.STAMP, 0x5EED);
        REGION.setLongPlain(b + HarrisMichaelCore.VALUE, REUSED);
        REGION.setLongRelease(b + HarrisMichaelCore.NEXT, 0);
        return b;
    }
}
