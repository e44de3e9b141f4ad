package dev.floe.bench.alloc;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake {@link OffHeapAllocator} that enforces the slot contract instead of allocating: a slot
 * may only be allocated while empty and freed while full, and every write must hit a live block.
 * Any violation is counted, so a test can assert there were none.
 */
final class CheckingAllocator implements OffHeapAllocator {

    private final AtomicIntegerArray state;
    final AtomicLong allocs = new AtomicLong();
    final AtomicLong frees = new AtomicLong();
    final AtomicLong violations = new AtomicLong();

    CheckingAllocator(int slots) {
        this.state = new AtomicIntegerArray(slots);
    }

    @Override
    public long alloc(int slot, int size) {
        if (size <= 0 || !state.compareAndSet(slot, 0, 1)) violations.incrementAndGet();
        allocs.incrementAndGet();
        return slot;
    }

    @Override
    public void write(long handle, long value) {
        if (state.get((int) handle) != 1) violations.incrementAndGet();
    }

    @Override
    public void free(long handle) {
        if (!state.compareAndSet((int) handle, 1, 0)) violations.incrementAndGet();
        frees.incrementAndGet();
    }

    long live() {
        long n = 0;
        for (int i = 0; i < state.length(); i++) n += state.get(i);
        return n;
    }

    @Override
    public void close() {
        // nothing held
    }
}
