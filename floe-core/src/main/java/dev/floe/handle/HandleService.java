package dev.floe.handle;

/**
 * ALASKA's service interface, the half that owns backing memory: where the objects named by
 * handles live. The handle runtime ({@link HandleSpace}) asks a service for a block when a
 * handle is allocated and gives it back after the handle's deferred free; a service that moves
 * objects does so through {@link HandleSpace#move}, which checks pins and switches the
 * handle-table entry ({@link Anchorage} moves batches through the same protocol). {@link AnchorageHeap} is the one we ship (with {@link Anchorage}, its
 * defragmenter); another service (a swapper, a compressor) would implement this interface.
 * A service serves one space (the space's close closes it); {@link HandleSpace} refuses an
 * {@code AnchorageHeap} that already serves another.
 */
public interface HandleService {
    /**
     * The largest object {@link #allocate} accepts. A {@link HandleSpace} asks for at most
     * {@link Integer#MAX_VALUE} bytes whatever this says (an entry holds the size in 32 bits).
     */
    long maxObjectSize();

    /**
     * A block of at least {@code size} bytes (1 .. {@link #maxObjectSize()}) that will hold the
     * object of handle id {@code id}; returns its offset in the region of the space's allocator
     * (below 2^40: a handle-table entry holds a 40-bit offset).
     */
    long allocate(long size, int id);

    /** Gives back a block returned by {@link #allocate}; no thread may use it any more. */
    void free(long offset);

    /** The usable bytes of the allocated block at {@code offset}; IllegalArgumentException for any other offset. */
    long usableSize(long offset);

    /** Bytes of memory the service holds (committed), for the fragmentation measure. */
    long committedBytes();

    /** Bytes of the blocks currently allocated. */
    long liveBytes();

    /** Gives every block and all memory back (the space is closed and unreachable). */
    void close();
}
