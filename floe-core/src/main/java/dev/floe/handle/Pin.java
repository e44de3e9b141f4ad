package dev.floe.handle;

import java.lang.foreign.MemorySegment;

/**
 * A scoped pin (ALASKA's term) on one object: while it is open the object does not move and is
 * not freed for reuse, and {@link #segment()} is a view bounded to it. Close it (try-with-resources)
 * to unpin; closing twice is harmless.
 *
 * <p>A pin is a {@link dev.floe.reclaim.HazardSlots hazard slot} holding the handle's id, so it
 * costs one CAS to take and one release store to give back, and there is no limit on how many
 * threads (platform or virtual) pin at once. Hoisting: a loop over one object should pin once
 * around the loop, not once per iteration (see {@link HandleSpace}).
 *
 * <p>A pin may be handed to another thread (publish it safely, as any object), but it is not
 * meant to be closed by two threads at once: its closed flag is a plain field, so two racing
 * closes could both clear the slot, the second one after another pin reused it. Closing again
 * later, from the same thread or after a hand-off, is harmless.
 */
public final class Pin implements AutoCloseable {
    private final HandleSpace space;
    private final long handle;
    private final int slot;
    private final MemorySegment view;
    private boolean closed;

    Pin(HandleSpace space, long handle, int slot, MemorySegment view) {
        this.space = space;
        this.handle = handle;
        this.slot = slot;
        this.view = view;
    }

    /**
     * The object's bytes, bounded to its size. Valid until {@link #close()} or the space's close;
     * a view kept and used afterwards stays inside the allocator's region but may touch memory
     * that belongs to another object (it is a slice of the region, so it fails only once the
     * allocator closes).
     *
     * @throws IllegalStateException if the pin or its space is closed
     */
    public MemorySegment segment() {
        if (closed) throw new IllegalStateException("pin on " + Handle.toString(handle) + " is closed");
        space.ensureOpen(); // the space's close gave the pinned block back
        return view;
    }

    /** The pinned handle. */
    public long handle() {
        return handle;
    }

    /**
     * Unpins (release store: the holder's writes are visible to whoever sees the pin gone).
     * Closing twice, or after the space closed, does nothing harmful.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        space.unpin(slot);
    }
}
