package dev.floe.memory;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.ConcurrentLinkedQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The allocator's superblock release ({@link SuperblockHeap}'s class comment): the free of a
 * superblock's last live block against an allocation of the same size class that may pop that
 * superblock from the partial stack meanwhile.
 *
 * <p>Each state has a heap of its own whose superblock 1 (64 KiB, four 16 KiB blocks) was carved
 * for one block: it is PARTIAL, on its class's partial stack, and that block is its only live
 * one. The freer flushes the block back, which moves the superblock to RELEASING, madvises it,
 * then makes it EMPTY (or, if a popper marked it POPPED meanwhile, pushes it on the reuse stack).
 * The filler takes one block of the class and writes a stamp into it. Legal orders: the filler
 * takes a block first (nothing is released); the release comes first and the filler reuses
 * superblock 1 (it meets EMPTY on the partial stack and moves it to the reuse stack itself, or
 * met RELEASING, marked it POPPED and found it on the reuse stack where the flusher put it); or
 * the filler meets RELEASING, marks it POPPED and carves superblock 2 while the flusher is still
 * in madvise, and the flusher hands superblock 1 to the reuse stack.
 *
 * <p>Results: r1 = the superblock holding the filler's block (1 or 2; 0 if the filler threw),
 * r2 = superblocks released, r3 = 1 if the filler's stamp is still in its block, r4 = the
 * arbiter's check of the heap at rest: the number of free blocks of the class a drain could take
 * (all distinct, none the filler's) before the heap had to carve a new superblock; or -1 if the
 * drain was handed a block twice, -2 if the heap threw (in an actor or the drain), -3 if a
 * superblock's free count is not the number of blocks in its free bitmap, -4 if the committed
 * bytes are not one superblock per superblock not EMPTY.
 *
 * <p>Forbidden, and why: a zeroed stamp means a madvise ran after the block was handed out (the
 * superblock was reused before its release finished: the user's data is lost). A drain that
 * finds fewer free blocks than the superblocks hold (3 beside the filler's block when it is in
 * superblock 1; 3 + 4 when superblock 2 was carved) means an emptied superblock reached no stack
 * and is lost for good; a block handed out twice, a free count off its bitmap, or the heap's own
 * invariant checks throwing mean a descriptor was pushed twice or used while it was being
 * released; committed bytes off the superblocks' states mean a release was not refunded once.
 * A new superblock without a release (r1 = 2, r2 = 0) means the filler passed over a superblock
 * that had free blocks.
 *
 * <p>Lives in {@code dev.floe.memory} to drive the package-private heap directly: the caches in
 * front of it would decide when blocks reach it, and a call that finds every cache stripe busy
 * does exactly this (one block to {@link SuperblockHeap#flush}, one from
 * {@link SuperblockHeap#fill}). A fresh heap per state is cheap; a mapped region is not (an
 * {@code mmap}, and a shared arena whose close is a handshake with every thread), so regions come from a pool:
 * the arbiter gives a region's pages back (reading zeros again) before the next state takes it.
 */
@JCStressTest
@Description("Allocator: free of a superblock's last block (release) vs a fill of the same class")
@Outcome(id = "1, 0, 1, 3", expect = ACCEPTABLE, desc = "the filler took a block first; nothing was released")
@Outcome(id = "1, 1, 1, 3", expect = ACCEPTABLE, desc = "released first; the filler reused superblock 1 after its madvise")
@Outcome(id = "2, 1, 1, 7", expect = ACCEPTABLE, desc = "the filler met RELEASING, marked POPPED and carved superblock 2; the flusher put superblock 1 on the reuse stack")
@Outcome(expect = FORBIDDEN, desc = "a stamp zeroed by a late madvise, a lost superblock, a block handed out twice, a count off its bitmap, a throw, wrong committed bytes")
@State
public class SuperblockReleaseVsFillTest {
    private static final long SUPERBLOCK = 64 << 10;
    /** Superblocks 1 to 3 (index 0 is never carved): the race needs two, the drain may carve a third. */
    private static final long REGION = 4 * SUPERBLOCK;
    private static final int CLASS = SizeClasses.classOf(16 << 10);
    private static final int BLOCKS = (int) (SUPERBLOCK / SizeClasses.blockSize(CLASS));
    private static final long STAMP = 0x5EED_F10EL;
    private static final ConcurrentLinkedQueue<Region> REGIONS = new ConcurrentLinkedQueue<>();

    private final Region region = takeRegion();
    private final Budget budget = new Budget(Long.MAX_VALUE, () -> 0);
    private final SuperblockHeap heap = new SuperblockHeap(region, SUPERBLOCK, REGION, budget, false, SizeClassTable.STANDARD);
    private final long last = takeOne(); // carves superblock 1 for this block, its only live one
    private long filled;
    private RuntimeException thrown;

    @Actor
    public void free() {
        try {
            heap.flush(new long[] {last}, 0, 1);
        } catch (RuntimeException e) {
            thrown = e;
        }
    }

    @Actor
    public void fill(IIII_Result r) {
        try {
            filled = takeOne();
            region.setLongPlain(filled, STAMP);
            r.r1 = (int) (filled >>> heap.superblockShift);
        } catch (RuntimeException e) {
            thrown = e;
        }
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r2 = (int) heap.releases();
        r.r3 = filled != 0 && region.getLongPlain(filled) == STAMP ? 1 : 0;
        int broken = thrown != null ? -2 : brokenAccounting();
        r.r4 = broken != 0 ? broken : drain();
        region.release(SUPERBLOCK, REGION - SUPERBLOCK);
        REGIONS.offer(region);
    }

    /**
     * -3 if a superblock's free count is not the number of blocks in its free bitmap (at rest they
     * are equal: a higher count would make a fill look for a block that is not there, forever),
     * -4 if the budget's committed bytes are not one superblock per superblock not EMPTY, else 0.
     */
    private int brokenAccounting() {
        long committed = 0;
        for (int i = 1; i < heap.carved(); i++) {
            Superblock sb = heap.directory.get(i);
            long anchor = sb.anchor();
            int free = 0;
            for (long word : sb.freeBits) free += Long.bitCount(word);
            if (free != Anchor.count(anchor)) return -3;
            if (Anchor.state(anchor) != Anchor.EMPTY) committed += SUPERBLOCK;
        }
        return committed == budget.committed() ? 0 : -4;
    }

    /** Takes free blocks one at a time until the heap carves a superblock (see the class comment for r4). */
    private int drain() {
        int carved = heap.carved();
        long[] taken = new long[3 * BLOCKS]; // every block the region's superblocks hold
        int n = 0;
        try {
            while (n < taken.length) {
                long b = takeOne();
                if (heap.carved() != carved) break;
                for (int i = 0; i < n; i++) if (taken[i] == b) return -1;
                if (b == filled) return -1;
                taken[n++] = b;
            }
        } catch (RuntimeException e) {
            return -2;
        }
        return n;
    }

    private long takeOne() {
        long[] one = new long[1];
        heap.fill(CLASS, one, 0, 1);
        return one[0];
    }

    private static Region takeRegion() {
        Region r = REGIONS.poll();
        return r != null ? r : Region.open(REGION, SUPERBLOCK, RegionMode.MAPPED);
    }
}
