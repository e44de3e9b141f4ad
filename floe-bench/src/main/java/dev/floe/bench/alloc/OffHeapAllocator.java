package dev.floe.bench.alloc;

/**
 * The one interface the alloc suite drives every allocator through, so that the workload code is
 * literally the same for all of them.
 *
 * <p>Handles and slots: {@link #alloc} returns a {@code long} handle that {@link #write} and
 * {@link #free} take back. Allocators that hand out addresses or offsets (Floe, malloc) return
 * those. Allocators that hand out objects (a Netty {@code ByteBuf}, an {@code Arena}) keep the
 * object in an array at the caller's {@code slot} and return the slot number. The workload owns
 * the slots: it passes a slot that is not in use by any live block (for a ring of blocks, the
 * ring position), and it does not reuse a slot before the block in it has been freed, with a
 * happens-before edge from that free to the reuse when two threads are involved.
 *
 * <p>Instances are opened per trial by {@link AllocImpl#open} and are safe for concurrent use by
 * threads working on distinct slots.
 */
public interface OffHeapAllocator extends AutoCloseable {

    /** Allocates {@code size} bytes for {@code slot}; returns the handle of the block. */
    long alloc(int slot, int size);

    /** Writes one long at the start of the block, so that allocation is never dead code. */
    void write(long handle, long value);

    /** Frees the block. */
    void free(long handle);

    /** Gives cached free memory back where the allocator supports it (Floe); a no-op otherwise. */
    default void trim() {}

    /** Off-heap bytes the allocator holds from the OS, if it counts them; 0 otherwise. */
    default long committedBytes() {
        return 0;
    }

    /** Off-heap bytes in live blocks, if the allocator counts them; 0 otherwise. */
    default long liveBytes() {
        return 0;
    }

    /** Releases the allocator itself (after every block has been freed). */
    @Override
    void close();
}
