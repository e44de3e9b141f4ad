package dev.floe.memory;

/**
 * An allocation would exceed the allocator's budget of committed bytes (or exhaust its address
 * space). No block changed hands in the failed call (it may have flushed the caches first, as
 * {@link FloeAllocator#trim()} does), and the allocator keeps working: once blocks are freed,
 * their memory is available again to allocations of any size, as far as the budget goes. The
 * address space of a superblock is not: it keeps the size class it was carved for, so the
 * small-block area can run out for a new class while little is committed; the message then
 * says how many released superblocks belong to other classes
 * ({@link FloeAllocator.Builder#regionSize}).
 */
public final class FloeOutOfMemoryException extends RuntimeException {
    private final long liveBytes;
    private final long committedBytes;
    private final long requestedBytes;
    private final long budgetBytes;

    /**
     * @param reason         what ran out (the start of the message)
     * @param liveBytes      bytes allocated to users when the allocation failed
     * @param committedBytes bytes committed when the allocation failed
     * @param requestedBytes the size asked for (a block of a size class: its block size)
     * @param budgetBytes    the budget, or {@code Long.MAX_VALUE} for none
     */
    public FloeOutOfMemoryException(String reason, long liveBytes, long committedBytes,
                                    long requestedBytes, long budgetBytes) {
        super(reason + ": requested " + requestedBytes + " bytes, live " + liveBytes
                + ", committed " + committedBytes
                + (budgetBytes == Long.MAX_VALUE ? "" : ", budget " + budgetBytes));
        this.liveBytes = liveBytes;
        this.committedBytes = committedBytes;
        this.requestedBytes = requestedBytes;
        this.budgetBytes = budgetBytes;
    }

    /** Bytes allocated to users when the allocation failed ({@link MemoryStats#liveBytes()}). */
    public long liveBytes() {
        return liveBytes;
    }

    /** Bytes committed when the allocation failed ({@link MemoryStats#committedBytes()}). */
    public long committedBytes() {
        return committedBytes;
    }

    /** The size asked for: the block size for a size class, else the requested bytes. */
    public long requestedBytes() {
        return requestedBytes;
    }

    /** The allocator's budget ({@link MemoryStats#budgetBytes()}), {@code Long.MAX_VALUE} for none. */
    public long budgetBytes() {
        return budgetBytes;
    }
}
