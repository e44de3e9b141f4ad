package dev.floe.reclaim;

import dev.floe.memory.FloeAllocator;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * SOMAR that never reclaims: the {@code grow-only} baseline of the Nova paper (section 4.1,
 * baseline 5, and Oak's grow-only memory manager in section 4.2). It measures what safety
 * costs: the same API, headers and pointer validation as the reclaiming schemes, no protection.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>allocate</b>: take a block, publish its header (release store) with the current
 *       version of the allocator's clock. This scheme never advances it (it never frees), but a
 *       block may come from another scheme instance on the same allocator, whose stale pointers
 *       must not match the new slice (see {@link SliceAccess}).</li>
 *   <li><b>read / write</b>: acquire-load the header and match it against the pointer (deleted
 *       bit, version, bounds: {@link SliceAccess}, as Nova); run the lambda on a read-only
 *       (read) or writable (write) view of exactly the slice. Nothing to announce, nothing to
 *       re-validate: the memory behind a pointer that once validated keeps its slice forever.
 *       An access concurrent with a delete is ordered before it.</li>
 *   <li><b>delete</b>: CAS the header's deleted bit (exactly one of racing deletes wins), so
 *       every later access through any copy of the pointer fails; the block is never freed.</li>
 * </ul>
 * Memory grows with every delete, without bound: this is a baseline, not a scheme to deploy.
 */
public final class GrowOnlySomar implements Somar {
    private final SliceAccess access;
    private final LongAdder deleted = new LongAdder();

    /**
     * The grow-only baseline on {@code allocator}.
     *
     * @throws IllegalStateException    if the allocator is closed
     * @throws IllegalArgumentException if its region is larger than safe pointers address
     */
    public GrowOnlySomar(FloeAllocator allocator) {
        this.access = new SliceAccess(allocator, "GrowOnlySomar", false);
    }

    @Override
    public long allocate(long length) {
        return access.allocate(length);
    }

    @Override
    public <R> R readOr(long ptr, SliceReader<R> reader, R onFailure) {
        Objects.requireNonNull(reader, "reader");
        // acquire: pairs with allocate's release store; blocks are never freed, so no re-check
        long h = access.liveHeaderAcquire(ptr);
        if (h == 0) return onFailure;
        return reader.read(access.readOnlyView(ptr, h));
    }

    @Override
    public <P, R> R writeOr(long ptr, SliceWriter<P, R> writer, P param, R onFailure) {
        Objects.requireNonNull(writer, "writer");
        long h = access.liveHeaderAcquire(ptr);
        if (h == 0) return onFailure;
        return writer.write(access.view(ptr, h), param);
    }

    @Override
    public boolean delete(long ptr) {
        if (!access.markDeleted(ptr)) return false;
        deleted.increment();
        return true;
    }

    @Override
    public <P, R> R writePrivate(long ptr, SliceWriter<P, R> writer, P param) {
        Objects.requireNonNull(writer, "writer");
        long h = access.liveHeaderPlain(ptr);
        if (h == 0) throw new DeletedSliceException(ptr);
        return writer.write(access.view(ptr, h), param);
    }

    @Override
    public void deletePrivate(long ptr) {
        access.markDeletedPrivate(ptr);
        deleted.increment();
    }

    /** Nothing to offer: deleted slices are never reclaimed. */
    @Override
    public void reclaimNow() {}

    /** Length of the live slice, or -1 if the pointer no longer names one. */
    public long length(long ptr) {
        return access.length(ptr);
    }

    /** Largest slice length {@link #allocate} accepts. */
    public long maxSlice() {
        return access.maxSlice();
    }

    /** Deleted slices, all still holding their blocks (the memory this scheme leaks). */
    public long deletedSlices() {
        return deleted.sum();
    }

    /** The allocator the slices come from. */
    public FloeAllocator allocator() {
        return access.allocator;
    }
}
