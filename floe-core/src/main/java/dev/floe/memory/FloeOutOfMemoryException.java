package dev.floe.memory;

/**
 * An allocation would exceed the allocator's budget of committed bytes (or exhaust its address
 * space). The allocator is unchanged by the failed call and keeps working once memory is freed.
 */
public final class FloeOutOfMemoryException extends RuntimeException {
    private final long liveBytes;
    private final long committedBytes;
    private final long requestedBytes;

    public FloeOutOfMemoryException(String reason, long liveBytes, long committedBytes,
                                    long requestedBytes, long budgetBytes) {
        super(reason + ": requested " + requestedBytes + " bytes, live " + liveBytes
                + ", committed " + committedBytes
                + (budgetBytes == Long.MAX_VALUE ? "" : ", budget " + budgetBytes));
        this.liveBytes = liveBytes;
        this.committedBytes = committedBytes;
        this.requestedBytes = requestedBytes;
    }

    public long liveBytes() {
        return liveBytes;
    }

    public long committedBytes() {
        return committedBytes;
    }

    public long requestedBytes() {
        return requestedBytes;
    }
}
