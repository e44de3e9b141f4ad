package dev.floe.bench.harness;

/**
 * The flag that ends a timed window. Workload loops poll {@link #isRaised()} once per operation:
 * a volatile read, which on x86 and ARM is an ordinary load plus a compiler barrier, cheap next
 * to an allocation.
 */
public final class StopSignal {

    private volatile boolean raised;

    /** True once the window is over (volatile read: LoadLoad after it). */
    public boolean isRaised() {
        return raised;
    }

    /** Ends the window (volatile write: visible to every polling thread promptly). */
    void raise() {
        raised = true;
    }
}
