package dev.floe.handle;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.memory.Region;
import dev.floe.reclaim.HazardSlots;
import dev.floe.reclaim.RetireBatches;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * ALASKA's runtime, made concurrent: objects named by {@linkplain Handle handles} through an
 * off-heap {@linkplain HandleTable handle table}, so that a service (ANCHORAGE:
 * {@link AnchorageHeap} + {@link Anchorage}) can move them while other threads read, write and
 * pin them — with no stop-the-world pause (ALASKA pauses every thread at a barrier; this is the
 * concurrent path its section 7 sketches).
 *
 * <pre>{@code
 * HandleSpace space = new HandleSpace(allocator);        // objects in an AnchorageHeap
 * long h = space.allocate(240);                           // a handle: copy it anywhere
 * space.write(h, seg -> { seg.set(JAVA_LONG, 0, 42L); return null; });
 * long v = space.read(h, seg -> seg.get(JAVA_LONG, 0));   // optimistic, no shared write
 * try (Pin p = space.pin(h)) {                            // hoisted pin: one for the whole loop
 *     MemorySegment seg = p.segment();
 *     for (long i = 0; i < seg.byteSize(); i += 8) seg.set(JAVA_LONG, i, i);
 * }
 * space.free(h);
 * }</pre>
 *
 * <h2>State</h2>
 * Per handle id, an entry of two words (see {@link HandleTable}, {@link EntryState}): the
 * <em>state</em> word (offset, MOVING, FREE, a change count bumped by every change) and the
 * <em>meta</em> word (version, size), which changes only when an id is reused. Pins are
 * {@link HazardSlots} holding the id (ARCHITECTURE.md's shared mechanism; ALASKA's pin sets,
 * unified by a scan instead of a barrier). Deferred frees go through {@link RetireBatches}.
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li><b>read</b> (optimistic; writes nothing shared): acquire-load meta (version must match the
 *       handle), volatile-load state (must not be FREE), run the reader on a read-only view of
 *       {@code size} bytes at the state's offset, {@link VarHandle#loadLoadFence()}, re-load
 *       state and meta; both unchanged: return, else retry. A MOVING state is fine to read
 *       through: nobody writes an object's old place while it is being moved (see write).
 *       After {@value #OPTIMISTIC_ATTEMPTS} failed attempts the read pins, so a reader racing an
 *       aggressive mover still finishes.</li>
 *   <li><b>pin</b> / <b>write</b>: publish the id in a hazard slot (one CAS: a full fence), then
 *       load meta (version must match), state (must not be FREE); if the state is MOVING, CAS the
 *       mark away (this <em>cancels</em> the move) and load again; re-load meta (unchanged). The
 *       view is bounded to the object. Unpin is a release store of the slot.</li>
 *   <li><b>move</b> ({@link #relocate}, one batch): (1) CAS each object's state from live to
 *       MOVING; (2) one {@linkplain HazardSlots#snapshot snapshot} of the pins; (3) for each
 *       marked object: if pinned, CAS the mark away (back off); else copy its bytes to a new
 *       block and CAS the state from the MOVING value it set to live-at-the-new-offset. If that
 *       CAS fails (a pinner cancelled, or the handle was freed), the copy was never published
 *       and its block is freed at once; if it succeeds, the old block is retired to the batch's
 *       own list, which the relocating thread frees when the batch ends (see "The old copy").</li>
 *   <li><b>free</b>: load meta (version must match), state (not FREE), meta again (unchanged);
 *       CAS state to FREE (keeping the offset; cancels a move). Exactly one of racing frees wins.
 *       The id is retired; when a drain finds no pin holding the id, the block at the FREE
 *       state's offset goes back to the service and the id to the table's free stack.</li>
 *   <li><b>allocate</b>: a FREE id, a block from the service (zeroed), then meta and state with
 *       release stores (meta first); the handle carries the new version. A full table or an
 *       exhausted budget first drains the retired ids, whose ids and blocks are otherwise held
 *       until a retire batch fills.</li>
 * </ul>
 *
 * <h2>Why it is correct</h2>
 * <b>A read never returns mixed or foreign bytes.</b> The change count makes every state value
 * unique over the entry's life (up to its wrap, see {@link EntryState}), and versions make meta
 * values unique. A read returns only if it loaded the same state {@code s} and meta {@code a}
 * before and after its data loads (the load fence keeps the data loads between them), so for that
 * whole interval the entry named one object of this handle's version, at {@code offset(s)}, and
 * nobody changed the entry. The bytes at that offset belong to that object for as long as the
 * entry names it: a move publishes the new offset only by changing the state (so a read through
 * the old one fails), and a free changes it to FREE before the block can go back. Could the bytes
 * at {@code offset(s)} change under the read other than by this object's writers? Only the mover
 * writes new blocks, and it writes only blocks no entry names yet.
 *
 * <p><b>No write is lost, and a pinned object never moves.</b> Pinner: publish (full fence),
 * then load state. Mover: CAS state to MOVING (full fence), then load the slots. In the single
 * total order of these synchronization actions one comes first. If the pinner's publish comes
 * first, the mover's snapshot sees the pin and backs off — unless the pinner's load already saw
 * MOVING, in which case the pinner cancels. If the mover's CAS comes first, the pinner's load sees
 * MOVING (or a later value) and cancels with a CAS, which makes the mover's final CAS fail; or it
 * sees the final new offset, and pins there. So while a pin is open, the state keeps the offset
 * the pinner saw: writes go to the place readers read and later moves copy. A writer that unpinned
 * before the mover's snapshot released its slot; the snapshot's volatile load of that slot (or of
 * a later claim of it, which itself read the release) orders the writer's stores before the copy.
 * Copies made while a writer was active are never published.
 *
 * <p><b>No write or reuse after free.</b> A pin validated before the free's CAS published its slot
 * before that CAS (Dekker as above with the free's CAS and the drain's snapshot, which follows
 * the retire), so the drain sees it and keeps the block and the id; a pin whose load follows the
 * CAS sees FREE and fails. An id is reused only after its drain, with the next version, so stale
 * handles fail their version check. A forged {@code long} either names an id beyond the table
 * (refused before any load) or fails the version check; so does, in practice, a handle of
 * another space, whose versions started elsewhere ({@link HandleTable}, "Versions").
 *
 * <p><b>The old copy</b> of a moved object is retired rather than freed in place, like a deleted
 * slice: no pin can hold it (see above) and optimistic readers still looking at it fail their
 * validation, so it is freed without a pin check. Its retire list is the relocating thread's own:
 * the old copies of a batch are freed by that thread once every move of the batch is published,
 * never by an application thread that happens to fill a shared retire batch (the service's
 * reclamation work, and the {@code madvise} of the chunks it empties, stay on the service's
 * thread).
 *
 * <p><b>Progress.</b> Reads, pins and writes are lock-free against the mover (a pinner never
 * waits for a move: it cancels it), and the mover never waits for anyone (it backs off from pins).
 * A stalled mover leaves at most its current batch marked MOVING, which readers ignore and pinners
 * clear. A stalled pinner holds back one object's move and free.
 *
 * <h2>Hoisting pins</h2>
 * ALASKA's compiler hoists pins out of loops; on the JVM the API is the transparency (user code
 * never sees an address) and the user hoists: one {@link #pin} around a loop costs one CAS and
 * one release store for the whole loop, against one per iteration with {@link #write} (or a
 * fence-bracketed validation per {@link #read}). The price: the object cannot move and its block
 * cannot be freed while the pin is open, so long-held pins block defragmentation of their chunk.
 */
public final class HandleSpace implements AutoCloseable {
    /** Optimistic read attempts before a read pins. */
    static final int OPTIMISTIC_ATTEMPTS = 4;
    /** Default upper bound on live handles. */
    public static final long DEFAULT_MAX_HANDLES = 1L << 28;

    private final Region region;
    private final HandleService service;
    private final HandleTable table;
    private final HazardSlots pins = new HazardSlots();
    private final RetireBatches retired;
    private volatile boolean closed;
    /**
     * Moves in progress: defragmentation passes ({@link Anchorage}) and {@link #move} calls
     * between {@link #beginMoves} and {@link #endMoves}. {@link #close()} waits for none to be
     * left before it frees anything, so a move never copies into a chunk or writes a table entry
     * that the close gave back (to the allocator, and so possibly to another user of it).
     */
    private final java.util.concurrent.atomic.AtomicInteger moving = new java.util.concurrent.atomic.AtomicInteger();

    /** A space whose objects live in a new {@link AnchorageHeap} on {@code allocator}. */
    public HandleSpace(FloeAllocator allocator) {
        this(allocator, new AnchorageHeap(allocator), DEFAULT_MAX_HANDLES);
    }

    /**
     * A space whose objects live in {@code service} (on {@code allocator}: its blocks are offsets
     * in that allocator's region), with room for {@code maxHandles} live handles.
     *
     * @throws IllegalArgumentException if {@code maxHandles} is not in {@code [1, 2^31 - 2]}, or
     *                                  {@code service} is an {@link AnchorageHeap} on another
     *                                  allocator (its offsets would name bytes of this one's region)
     *                                  or already serving another space (a service serves one
     *                                  space: this one's close releases all its memory)
     * @throws IllegalStateException    if the allocator is closed
     */
    public HandleSpace(FloeAllocator allocator, HandleService service, long maxHandles) {
        Objects.requireNonNull(allocator, "allocator");
        if (allocator.isClosed()) throw new IllegalStateException("the allocator is closed");
        this.service = Objects.requireNonNull(service, "service");
        if (service instanceof AnchorageHeap heap && heap.allocator() != allocator) {
            throw new IllegalArgumentException("the service's AnchorageHeap is on another allocator");
        }
        this.region = allocator.region();
        this.table = new HandleTable(allocator, maxHandles);
        this.retired = new RetireBatches(128, RetireBatches.defaultStripes(), this::drain);
        if (service instanceof AnchorageHeap heap && !heap.attach()) { // last: nothing else can fail
            throw new IllegalArgumentException("the AnchorageHeap already serves another space");
        }
    }

    /**
     * A new object of {@code size} bytes, zeroed; returns its handle.
     *
     * @throws IllegalArgumentException if {@code size} is not in [1, {@link #maxObjectSize()}]
     * @throws IllegalStateException    if the space is closed, or {@code maxHandles} handles are
     *                                  live (a full table first runs the deferred frees of freed
     *                                  handles; a freed handle still pinned keeps its id)
     * @throws FloeOutOfMemoryException if the allocator's budget is exhausted, for the object or
     *                                  for the handle table's next chunk (after the deferred frees
     *                                  of freed handles not pinned have run)
     */
    public long allocate(long size) {
        ensureOpen();
        if (size <= 0 || size > maxObjectSize()) {
            throw new IllegalArgumentException("object size " + size + " is not in [1, " + maxObjectSize() + "]");
        }
        int id = newId();
        long off;
        try {
            off = blockFor(size, id);
        } catch (Throwable e) { // the service is user code: also Errors and undeclared checked exceptions
            table.releaseId(id);
            throw e;
        }
        region.slice(off, size).fill((byte) 0);
        return Handle.of(id, table.publish(id, (int) size, off));
    }

    /**
     * An id for a new handle. Freed handles hold their ids, and their objects their blocks, until
     * their deferred free: when the table is full, or the budget has no room for the table's next
     * chunk (16,384 ids) while some wait, they are drained and the table is asked once more (a
     * drain may give back ids, so that no new chunk is needed, or the budget for one).
     */
    private int newId() {
        int id;
        try {
            id = table.acquireId();
        } catch (FloeOutOfMemoryException e) {
            if (retired.waiting() == 0) throw e;
            id = 0;
        }
        if (id == 0) {
            retired.drainAll();
            id = table.acquireId();
            if (id == 0) throw new IllegalStateException("handle table full: " + table.maxHandles() + " handles live");
        }
        return id;
    }

    /**
     * A block from the service for a new object. Freed objects hold their blocks until their
     * deferred free: when the budget is exhausted and some wait, they are drained first and the
     * service is asked once more.
     */
    private long blockFor(long size, int id) {
        try {
            return service.allocate(size, id);
        } catch (FloeOutOfMemoryException e) {
            if (retired.waiting() == 0) throw e;
            retired.drainAll();
            return service.allocate(size, id);
        }
    }

    /**
     * Reads the object optimistically: {@code reader} runs on a read-only view and its result is
     * returned only if the object did not move or change identity meanwhile (else it runs again).
     * The validation does not see writes: a read that overlaps a {@link #write} of the same object
     * (or a pin holder's stores) may see part of it, as plain loads of shared memory would. Order
     * the readers and writers of one object yourself where a read must see whole writes.
     *
     * @throws StaleHandleException if the handle names no live object
     */
    public <R> R read(long handle, HandleReader<R> reader) {
        Objects.requireNonNull(reader, "reader");
        long id = checkedId(handle);
        for (int attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
            long a = table.meta(id);                          // acquire
            long s = stateOf(handle, id, a);
            if (EntryState.isFree(s)) continue;
            R r;
            try {
                r = reader.read(region.slice(EntryState.offset(s), HandleTable.size(a)).asReadOnly());
            } catch (Throwable e) { // also Errors (garbage can make a reader allocate a huge array or recurse) and undeclared checked exceptions
                if (unchanged(id, s, a)) throw e;
                continue; // the bytes were not this object's: the exception is discarded
            }
            if (unchanged(id, s, a)) return r;
        }
        try (Pin p = pin(handle)) {
            return reader.read(p.segment().asReadOnly());
        }
    }

    /**
     * The entry's state word (volatile load), read after its meta word {@code a} in a retry loop
     * of {@link #read}, {@link #pin} or {@link #free}. Throws if {@code a} names another version
     * than the handle's, or if the entry is free while {@code a} is unchanged around that load
     * (the handle was freed). A free word is returned only when {@code a} changed meanwhile: the
     * caller retries.
     */
    private long stateOf(long handle, long id, long a) {
        if (HandleTable.version(a) != Handle.version(handle)) throw stale(handle, "was freed");
        long s = table.state(id);                             // volatile
        if (EntryState.isFree(s) && table.meta(id) == a) throw stale(handle, "was freed");
        return s;
    }

    /** The read's validation: LoadLoad, then the entry must hold the words read before. */
    private boolean unchanged(long id, long s, long a) {
        VarHandle.loadLoadFence(); // the reader's data loads complete before the re-loads
        return table.state(id) == s && table.meta(id) == a;
    }

    /**
     * Pins the object, runs {@code writer} on a view of it, unpins.
     *
     * @throws StaleHandleException if the handle names no live object
     */
    public <R> R write(long handle, HandleWriter<R> writer) {
        Objects.requireNonNull(writer, "writer");
        try (Pin p = pin(handle)) {
            return writer.write(p.segment());
        }
    }

    /**
     * Pins the object until the returned pin is closed: it does not move, its block is not reused
     * even if the handle is freed meanwhile, and the pin's view is bounded to it.
     *
     * @throws StaleHandleException if the handle names no live object
     */
    public Pin pin(long handle) {
        long id = checkedId(handle);
        int slot = pins.protect(id); // claim + publish: full fence before the loads below
        try {
            while (true) {
                long a = table.meta(id);
                long s = stateOf(handle, id, a);
                if (EntryState.isFree(s)) continue;
                if (EntryState.isMoving(s)) {
                    table.casState(id, s, EntryState.settled(s)); // cancel the move; reload either way
                    continue;
                }
                if (table.meta(id) != a) continue;
                return new Pin(this, handle, slot, region.slice(EntryState.offset(s), HandleTable.size(a)));
            }
        } catch (Throwable e) { // also an Error: a StackOverflowError here once kept the slot for good
            pins.clear(slot);
            throw e;
        }
    }

    void unpin(int slot) {
        pins.clear(slot); // release store: the pin holder's writes happen before
    }

    /**
     * Frees the object. Its memory and id are reused only once no pin holds it; stale copies of
     * the handle fail from now on.
     *
     * @throws StaleHandleException if the handle names no live object (double free included)
     */
    public void free(long handle) {
        long id = checkedId(handle);
        while (true) {
            long a = table.meta(id);
            long s = stateOf(handle, id, a);
            if (EntryState.isFree(s)) continue;
            if (table.meta(id) != a) continue;
            // a unchanged around the load of s: s is this version's state; the CAS keeps it so
            if (table.casState(id, s, EntryState.freed(s))) break;
        }
        retired.add(id);
    }

    /**
     * The object's size in bytes, as allocated.
     *
     * @throws StaleHandleException if the handle names no live object
     */
    public long size(long handle) {
        long id = checkedId(handle);
        while (true) {
            long a = table.meta(id);
            if (HandleTable.version(a) != Handle.version(handle)) throw stale(handle, "was freed");
            long s = table.state(id);
            if (unchanged(id, s, a)) {
                if (EntryState.isFree(s)) throw stale(handle, "was freed");
                return HandleTable.size(a);
            }
        }
    }

    /** Whether the handle names a live object now (a snapshot: another thread may free it next). */
    public boolean isLive(long handle) {
        if (closed || Handle.version(handle) == 0 || !table.contains(Handle.id(handle))) return false;
        long id = Handle.id(handle);
        long a = table.meta(id);
        long s = table.state(id);
        return HandleTable.version(a) == Handle.version(handle) && !EntryState.isFree(s)
                && table.meta(id) == a;
    }

    /**
     * Whether some thread holds a pin on this handle's object now (ALASKA's pin status; a
     * snapshot). A freed handle whose id was not reused yet answers for its block, which a pin
     * may hold after the free.
     *
     * @throws StaleHandleException if the handle was never made by this space, or its id now
     *                              names another object (it was freed and the id reused)
     */
    public boolean isPinned(long handle) {
        long id = checkedId(handle);
        if (HandleTable.version(table.meta(id)) != Handle.version(handle)) throw stale(handle, "was freed");
        return HazardSlots.contains(pins.snapshot(), id);
    }

    /**
     * The largest object {@link #allocate} accepts: the service's largest, at most
     * {@link Integer#MAX_VALUE} bytes (an entry's meta word holds the size in 32 bits).
     */
    public long maxObjectSize() {
        return Math.min(service.maxObjectSize(), Integer.MAX_VALUE);
    }

    /** The service holding the objects' memory. */
    public HandleService service() {
        return service;
    }

    /**
     * Offers every retired id to reclamation now (normally this happens when a
     * retire batch fills): afterwards, everything retired before the call and not pinned has gone
     * back to the service, except what a stalled retiring thread has not finished adding, and
     * what another thread was still draining after a wait of up to 100 ms for it.
     */
    public void drainRetired() {
        ensureOpen();
        retired.drainAll();
    }

    /**
     * Moves one object to a new block from the service, with the move protocol (see the class
     * comment): the service interface's "move" for services other than {@link Anchorage}, and for
     * tests. Returns whether it moved; it does not if the object is pinned, a pinner or a free
     * raced with the copy, or another move of it is in progress. Safe to call from any thread,
     * concurrently with every operation and with other moves.
     *
     * @throws StaleHandleException     if the handle names no live object
     * @throws FloeOutOfMemoryException if the budget has no room for the copy (the object stays)
     */
    public boolean move(long handle) {
        long id = checkedId(handle);
        while (true) {
            long a = table.meta(id);
            if (HandleTable.version(a) != Handle.version(handle)) throw stale(handle, "was freed");
            long s = table.state(id);
            // a unchanged around the load of s: s is this version's state, not that of an object
            // that reused the id in between (relocate then moves only if s still holds)
            if (table.meta(id) != a) continue;
            if (EntryState.isFree(s)) throw stale(handle, "was freed");
            if (!beginMoves()) throw new IllegalStateException("handle space is closed");
            try {
                return relocate(new int[] {(int) id}, new long[] {EntryState.offset(s)}, 1).moved() == 1;
            } finally {
                endMoves();
            }
        }
    }

    /** Outcome counts of one {@link #relocate} batch. */
    record Moves(int moved, int pinned, int cancelled, long bytes) {}

    /**
     * The move protocol (see the class comment) for {@code n} objects: {@code ids[i]} believed to
     * be at {@code from[i]}. Objects that are no longer there, freed, or already marked are skipped;
     * pinned ones are left; the others get a new block from the service. Concurrent with every
     * other operation and with other relocations (marking an object MOVING is one CAS, so at most
     * one relocation of an object is in progress).
     */
    Moves relocate(int[] ids, long[] from, int n) {
        long[] marked = new long[n];
        int markedCount = 0;
        for (int i = 0; i < n; i++) {
            long id = ids[i] & 0xFFFF_FFFFL;
            if (!table.contains(id)) continue;
            long s = table.state(id);
            if (EntryState.isFree(s) || EntryState.isMoving(s) || EntryState.offset(s) != from[i]) continue;
            long m = EntryState.moving(s);
            if (table.casState(id, s, m)) { // full fence: the mark precedes the snapshot's loads
                marked[i] = m;
                markedCount++;
            }
        }
        if (markedCount == 0) return new Moves(0, 0, 0, 0);
        long[] pinned = pins.snapshot();
        long[] oldCopies = new long[markedCount]; // this relocation's own retire list
        int oldCount = 0;
        int moved = 0, held = 0, cancelled = 0;
        long bytes = 0;
        try {
            for (int i = 0; i < n; i++) {
                long m = marked[i];
                if (m == 0) continue;
                long id = ids[i] & 0xFFFF_FFFFL;
                if (HazardSlots.contains(pinned, id)) {
                    table.casState(id, m, EntryState.settled(m)); // back off; fails only if already cancelled or freed
                    held++;
                    continue;
                }
                int size = HandleTable.size(table.meta(id));
                // The meta is this object's only while the state is still m: a free after the
                // mark, a drain and a reuse of the id would publish another object's size (and
                // copying that many bytes from the old block could run off the region). The
                // reuse's free CAS happens-before its meta store (retire list, id lock), so a
                // meta load that saw the new size is followed by a state load that sees no m.
                if (table.state(id) != m) {
                    cancelled++;
                    continue;
                }
                long to;
                try {
                    to = service.allocate(size, (int) id);
                } catch (Throwable e) { // out of memory (or any failure of the service): un-mark this and the rest, report
                    for (int k = i; k < n; k++) {
                        if (marked[k] != 0) table.casState(ids[k] & 0xFFFF_FFFFL, marked[k], EntryState.settled(marked[k]));
                    }
                    throw e;
                }
                // asked before the publish: once published, another mover may move the object on
                // and free this block (its chunk may even go back to the allocator)
                long block = service.usableSize(to);
                MemorySegment.copy(region.slice(from[i], size), 0, region.slice(to, size), 0, size);
                if (table.casState(id, m, EntryState.live(m, to))) { // publishes the copy (volatile write)
                    oldCopies[oldCount++] = from[i];
                    moved++;
                    bytes += block;
                } else {
                    service.free(to); // never published: nobody can hold it
                    cancelled++;
                }
            }
        } finally { // the batch's moves are all published, or it failed after some: free their old copies
            for (int i = 0; i < oldCount; i++) service.free(oldCopies[i]);
        }
        return new Moves(moved, held, cancelled, bytes);
    }

    /**
     * Drain of the retire batches: freed ids go back when no pin holds them. A failure of the
     * service's free (user code) costs only that entry: its id is set aside for good (never
     * reused over a block that may or may not have been freed; retrying could free it twice, and
     * a free that keeps failing would make every later drain throw), the rest of the batch is
     * drained, and the first failure is rethrown at the end with the others suppressed. Before,
     * the first failure abandoned the rest of the batch: up to 127 blocks and ids lost.
     */
    private void drain(long[] refs, int count) {
        long[] pinned = null;
        Throwable failure = null;
        for (int i = 0; i < count; i++) {
            long r = refs[i];
            if (pinned == null) pinned = pins.snapshot(); // after the frees' CASes (batch acquire)
            if (HazardSlots.contains(pinned, r)) {
                retired.add(r); // still pinned: retried at a later drain
                continue;
            }
            try {
                service.free(EntryState.offset(table.state(r)));
            } catch (Throwable e) {
                if (failure == null) failure = e; else failure.addSuppressed(e);
                continue; // the id stays taken: see above
            }
            table.releaseId((int) r);
        }
        if (failure != null) throw sneakyThrow(failure);
    }

    /** Rethrows {@code t} as it is (an undeclared checked exception of the service stays itself). */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    private long checkedId(long handle) {
        ensureOpen();
        long id = Handle.id(handle);
        if (Handle.version(handle) == 0 || !table.contains(id)) {
            throw stale(handle, "was never made by this space");
        }
        return id;
    }

    /**
     * Registers moves about to run ({@link #relocate} calls until {@link #endMoves}); false, and
     * nothing registered, if the space is closed. The increment and {@link #close()}'s store of
     * {@code closed} are both volatile writes followed by a volatile read of the other's
     * variable (Dekker): in the synchronization order one of the two comes first, so either this
     * sees the space closed or the close sees the count and waits.
     */
    boolean beginMoves() {
        moving.incrementAndGet();
        if (!closed) return true;
        moving.decrementAndGet();
        return false;
    }

    /** Ends what {@link #beginMoves} registered. */
    void endMoves() {
        moving.decrementAndGet();
    }

    /** Whether {@link #close()} was called (the defragmenter's loop ends then). */
    boolean isClosed() {
        return closed;
    }

    /** @throws IllegalStateException if the space is closed */
    void ensureOpen() {
        if (closed) throw new IllegalStateException("handle space is closed");
    }

    private static StaleHandleException stale(long handle, String why) {
        return new StaleHandleException(handle, why);
    }

    /**
     * Gives all memory back to the allocator: every object (live, freed and waiting for its
     * deferred free, or pinned) and the handle table. Only call it when no thread uses the space
     * (and any {@link Anchorage} on it is closed); afterwards every operation throws
     * {@link IllegalStateException}, a second close included, except {@link #isLive} (false),
     * {@link #maxObjectSize} and {@link #service}. A pin still open is not waited for: its
     * {@link Pin#segment()} throws from now on, and its close does nothing harmful. Moves are
     * waited for: a {@link #move} in progress, and a defragmentation pass, which stops after its
     * batch in progress (at most {@value Anchorage#BATCH} objects) when it sees the space closed.
     */
    @Override
    public synchronized void close() {
        ensureOpen();
        closed = true;
        // see beginMoves: every move registered after this store sees closed and does nothing
        for (int spins = 0; moving.get() != 0; spins++) {
            if (spins < 100) Thread.onSpinWait();
            else Thread.yield();
        }
        service.close();
        table.close();
    }
}
