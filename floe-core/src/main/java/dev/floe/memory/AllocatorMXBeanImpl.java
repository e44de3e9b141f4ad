package dev.floe.memory;

/** Adapts {@link FloeAllocator#stats()} to {@link FloeAllocatorMXBean}. */
final class AllocatorMXBeanImpl implements FloeAllocatorMXBean {
    private final FloeAllocator allocator;

    AllocatorMXBeanImpl(FloeAllocator allocator) {
        this.allocator = allocator;
    }

    private MemoryStats s() {
        return allocator.stats();
    }

    @Override public String getMode() { return s().mode().name(); }
    @Override public long getRegionBytes() { return s().regionBytes(); }
    @Override public long getLiveBytes() { return s().liveBytes(); }
    @Override public long getCommittedBytes() { return s().committedBytes(); }
    @Override public long getResidentBytes() { return s().residentBytes(); }
    @Override public long getBudgetBytes() { return s().budgetBytes(); }
    @Override public long getCachedBytes() { return s().cachedBytes(); }
    @Override public long getSuperblocksFull() { return s().superblocksFull(); }
    @Override public long getSuperblocksPartial() { return s().superblocksPartial(); }
    @Override public long getSuperblocksEmpty() { return s().superblocksEmpty(); }
    @Override public long getLargeRuns() { return s().largeRuns(); }
    @Override public long getLargeLiveBytes() { return s().largeLiveBytes(); }
    @Override public long getSuperblockReleases() { return s().superblockReleases(); }
}
