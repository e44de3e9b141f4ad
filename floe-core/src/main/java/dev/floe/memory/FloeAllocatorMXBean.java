package dev.floe.memory;

/**
 * The allocator's statistics as a platform MXBean, registered as
 * {@code dev.floe:type=FloeAllocator,name="<name>"} so JConsole, VisualVM and JMX exporters see
 * off-heap use that the JDK's own memory pools cannot. Each attribute reads a fresh
 * {@link MemoryStats} snapshot and is the record component of the same name
 * ({@code getLiveBytes()} is {@link MemoryStats#liveBytes()}, {@code getMode()} the mode's name).
 * The MBean is unregistered when the allocator closes.
 */
public interface FloeAllocatorMXBean {
    String getMode();

    long getRegionBytes();

    long getLiveBytes();

    long getCommittedBytes();

    long getResidentBytes();

    long getBudgetBytes();

    long getCachedBytes();

    long getSuperblocksFull();

    long getSuperblocksPartial();

    long getSuperblocksEmpty();

    long getLargeRuns();

    long getLargeLiveBytes();

    long getSuperblockReleases();
}
