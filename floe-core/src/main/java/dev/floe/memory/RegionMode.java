package dev.floe.memory;

/**
 * How a {@link Region} obtains its memory. Reported in {@link MemoryStats#mode()} and logged at
 * debug level when a region opens.
 */
public enum RegionMode {
    /**
     * One large virtual range reserved with {@code mmap(MAP_NORESERVE)}; physical memory is
     * returned to the OS with {@code madvise(MADV_DONTNEED)}. Needs native access
     * ({@code --enable-native-access=ALL-UNNAMED}, or the module that holds Floe).
     */
    MAPPED,
    /**
     * Fallback when native access is not enabled (or the OS is not Linux): the region is grown in
     * chunks allocated from a shared {@link java.lang.foreign.Arena}. No restricted method is called,
     * so the JDK prints no warning; released ranges are zero-filled but their memory is not returned
     * to the OS until the region closes.
     */
    ARENA_CHUNKS,
    /** Pick {@link #MAPPED} when native access is enabled on Linux, else {@link #ARENA_CHUNKS}. */
    AUTO
}
