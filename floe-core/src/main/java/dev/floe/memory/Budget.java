package dev.floe.memory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts committed bytes (superblocks not released, live large runs) and enforces the optional
 * cap. A charge that would exceed the cap changes nothing and throws
 * {@link FloeOutOfMemoryException} with the live, committed and requested bytes.
 */
final class Budget {
    private final AtomicLong committed = new AtomicLong();
    private final long cap;
    private final LongSupplier liveBytes;

    Budget(long cap, LongSupplier liveBytes) {
        this.cap = cap;
        this.liveBytes = liveBytes;
    }

    void charge(long bytes, long requested) {
        while (true) {
            long c = committed.get();
            if (c + bytes > cap) {
                throw new FloeOutOfMemoryException("Floe off-heap budget exceeded",
                        liveBytes.getAsLong(), c, requested, cap);
            }
            if (committed.compareAndSet(c, c + bytes)) return;
        }
    }

    /**
     * The exception for an exhausted address space, with the real live bytes and the committed
     * bytes excluding {@code pendingCharge} (a charge the failing request made and will refund);
     * {@code why} (empty, or starting with a space) follows "exhausted" in the message.
     */
    FloeOutOfMemoryException exhausted(String what, String why, long requested, long pendingCharge) {
        return new FloeOutOfMemoryException("Floe region address space for " + what + " exhausted" + why,
                liveBytes.getAsLong(), committed.get() - pendingCharge, requested, cap);
    }

    void refund(long bytes) {
        committed.addAndGet(-bytes);
    }

    long committed() {
        return committed.get();
    }

    long cap() {
        return cap;
    }
}
