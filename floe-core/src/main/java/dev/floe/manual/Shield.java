package dev.floe.manual;

import dev.floe.memory.Region;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A scoped access token that protects one manual object from reclamation while it is open and
 * gives bounded access to it (Snowflake's {@code Shield<T>}, paper sections 3.2 and 4.1). Use it
 * with try-with-resources:
 * <pre>{@code
 * try (Shield s = owner.defend()) {
 *     long stamp = s.getLong(0);
 * }
 * }</pre>
 * A shield is one {@link dev.floe.reclaim.HazardSlots hazard slot} of the heap, claimed when the
 * shield is created and cleared when it closes. It can be created empty ({@link ManualHeap#newShield})
 * and re-pointed with {@link #defend(Owner)} / {@link #tryDefend(Owner)}, which un-defends the
 * previous object (the paper's loop idiom: one shield for many objects).
 *
 * <h2>Defend: the protocol and its orderings</h2>
 * <ol>
 *   <li>read the thread's state word (its local epoch, or {@code EJECTED}) and the global epoch
 *       {@code g} (volatile load);</li>
 *   <li>if ejected, rejoin at {@code g} (CAS) and start again;</li>
 *   <li>read the owner's reference (volatile load, after the epoch load);</li>
 *   <li>publish it in the shield's slot (release store);</li>
 *   <li>commit: CAS the state word from the value read in 1 to {@code g}. This CAS is the single
 *       atomic step that makes the defend count; it fails only if a reclaimer ejected the thread
 *       since step 1, and then the defend starts again (the paper's replay of {@code SetShield}
 *       after the access-violation trap).</li>
 * </ol>
 * Why it is safe (with {@link EpochReclaimer}'s rule "free an object abandoned in epoch
 * {@code s} once the global epoch is {@code s + 3} and no slot holds it"): if the owner load in
 * step 3 returned the object, it preceded the abandon's exchange, so the epoch {@code g} read in
 * step 1 is at most the epoch {@code a} of the abandon, and the object's stamp is at least
 * {@code a}. The global epoch can only pass {@code a + 1} after a reclaimer read this thread's
 * state word as {@code >= a + 1}, as {@code EJECTED}, or as {@code RETIRED}: {@code >= a + 1}
 * can only be a value committed after step 5 (step 5 itself writes {@code g <= a}), so the
 * slot store of step 4 happens-before that read (release store, then the CAS in program order;
 * the reclaimer's volatile read of the CAS'd value synchronizes with it), and the reclaimer's
 * later snapshot sees the slot. An ejection that the reclaimer read either followed step 5
 * (same argument through the ejecting CAS) or made step 5 fail. A retired record belongs to an
 * ended thread, whose shields can no longer be used. The paper's defend is fence-free and relies
 * on the page protection's trap to be atomic with ejection; the JMM offers no such trap and no
 * compiler-only fence, so the commit is one CAS on a word only this thread writes (uncontended,
 * in its own cache line in practice): the cheapest step that makes the defend atomic with an
 * ejection.
 *
 * <h2>Run-time checks in place of the paper's front end</h2>
 * <ul>
 *   <li>Every method except {@link #close()} (idempotent) throws {@link IllegalStateException}
 *       once the shield is closed, and {@link WrongThreadException} on any thread but the one
 *       that created it.</li>
 *   <li>Accessors are bounded to the object: an offset outside it is an
 *       {@link IndexOutOfBoundsException}.</li>
 *   <li>{@link #segment()} returns a view owned by a confined arena that the shield closes when
 *       it closes or is re-pointed: the view can neither outlive the protection nor be used by
 *       another thread (both fail with the JDK's exceptions, never with a stale read).</li>
 * </ul>
 */
public final class Shield implements AutoCloseable {
    /** The slot value of a shield that defends nothing (the paper's {@code 0x01}): never an object. */
    static final long EMPTY = 1;

    private final ManualHeap heap;
    private final Participant participant;
    private final Thread thread;
    private final int slot;
    /** The heap's region, where the typed reads go (fixed for the heap's life). */
    private final Region region;
    private boolean open = true;
    /** The defended object's owner word (offset and length), or 0. */
    private long ref;
    /** The defended object's region offset and length, decoded from {@link #ref} at defend time. */
    private long base, length;
    /** The confined arena of the {@link #segment()} view, created on first use per object. */
    private Arena viewArena;
    private MemorySegment view;

    Shield(ManualHeap heap, Participant participant, int slot) {
        this.heap = heap;
        this.participant = participant;
        this.thread = Thread.currentThread();
        this.slot = slot;
        this.region = heap.allocator().region();
    }

    /**
     * Defends {@code owner}'s object instead of the current one (paper: {@code Shield.Defend(ref
     * Owner)}).
     *
     * @throws IllegalStateException    if the owner is empty (the shield then defends nothing),
     *                                  the shield is closed, or the heap's allocator is closed
     * @throws IllegalArgumentException if the owner belongs to another heap (the shield then keeps
     *                                  defending its current object)
     */
    public void defend(Owner owner) {
        if (!tryDefend(owner)) throw new IllegalStateException("owner is empty: abandoned or moved from");
    }

    /**
     * Defends {@code owner}'s object instead of the current one; false if the owner is empty (a
     * concurrent abandon, as in a cache lookup that races with expiry), and the shield then
     * defends nothing.
     *
     * @throws IllegalStateException    if the shield is closed, or the heap's allocator is closed
     *                                  (the shield then keeps defending its current object: it
     *                                  answered true and defended the new one, whose every access
     *                                  then failed)
     * @throws IllegalArgumentException if the owner belongs to another heap (the shield then keeps
     *                                  defending its current object)
     */
    public boolean tryDefend(Owner owner) {
        checkUsable();
        heap.checkOpen();
        Objects.requireNonNull(owner, "owner");
        if (owner.heap() != heap) throw new IllegalArgumentException("owner belongs to another heap");
        dropObject();
        while (true) {
            long seen = participant.state();          // own word: written by us, or EJECTED by a reclaimer
            long g = heap.epochs().current();          // volatile load (step 1)
            if (seen == Participant.EJECTED) {
                heap.reclaimer().rejoin(participant, g); // CAS (step 2)
                continue;
            }
            long r = owner.refVolatile();              // volatile load after the epoch load (step 3)
            heap.slots().publish(slot, r == 0 ? EMPTY : heap.offsetOf(r)); // release store (step 4)
            if (participant.commit(seen, g)) {         // CAS, full fence (step 5)
                ref = r;
                if (r != 0) {
                    base = heap.offsetOf(r);
                    length = heap.lengthOf(r);
                }
                return r != 0;
            }
            // ejected between step 1 and step 5: rejoin and replay
        }
    }

    /** Whether the shield defends an object now. */
    public boolean isDefending() {
        checkUsable();
        return ref != 0;
    }

    /** The object's size in bytes. */
    public long byteSize() {
        defended();
        return length;
    }

    /**
     * The byte at {@code offset} in the object. The typed accessors below throw
     * {@link IllegalStateException} if the shield is closed or defends nothing, or the heap's
     * allocator is closed, {@link WrongThreadException} from another thread,
     * and {@link IndexOutOfBoundsException} if the field does not lie inside the object;
     * fields need no alignment.
     */
    public byte getByte(long offset) {
        return (byte) region().getBits(fieldAt(offset, Byte.BYTES), Byte.BYTES);
    }

    /** Writes the byte at {@code offset} in the object (see {@link #getByte} for the checks). */
    public void setByte(long offset, byte value) {
        data().set(ValueLayout.JAVA_BYTE, offset, value);
    }

    /** The {@code int} at {@code offset} in the object, native byte order (see {@link #getByte}). */
    public int getInt(long offset) {
        return (int) region().getBits(fieldAt(offset, Integer.BYTES), Integer.BYTES);
    }

    /** Writes the {@code int} at {@code offset} in the object, native byte order (see {@link #getByte}). */
    public void setInt(long offset, int value) {
        data().set(ValueLayout.JAVA_INT_UNALIGNED, offset, value);
    }

    /** The {@code long} at {@code offset} in the object, native byte order (see {@link #getByte}). */
    public long getLong(long offset) {
        return region().getBits(fieldAt(offset, Long.BYTES), Long.BYTES);
    }

    /** Writes the {@code long} at {@code offset} in the object, native byte order (see {@link #getByte}). */
    public void setLong(long offset, long value) {
        data().set(ValueLayout.JAVA_LONG_UNALIGNED, offset, value);
    }

    /** Copies {@code length} bytes of {@code src} from {@code srcOffset} into the object at {@code offset}. */
    public void copyFrom(byte[] src, int srcOffset, long offset, int length) {
        Objects.requireNonNull(src, "src");
        MemorySegment.copy(src, srcOffset, data(), ValueLayout.JAVA_BYTE, offset, length);
    }

    /** Copies {@code length} bytes of the object from {@code offset} into {@code dst} at {@code dstOffset}. */
    public void copyTo(long offset, byte[] dst, int dstOffset, int length) {
        Objects.requireNonNull(dst, "dst");
        MemorySegment.copy(data(), ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
    }

    /**
     * Copies {@code length} bytes from the object defended by {@code src} (a shield of this
     * thread, open and defending) into this one.
     */
    public void copyFrom(Shield src, long srcOffset, long offset, long length) {
        Objects.requireNonNull(src, "src");
        MemorySegment.copy(src.data(), srcOffset, data(), offset, length);
    }

    /** Sets every byte of the object to {@code value}. */
    public void fill(byte value) {
        data().fill(value);
    }

    /**
     * A writable view of exactly the object, for layouts' var handles and bulk operations. It
     * belongs to a confined arena that closes when this shield closes or defends another object:
     * later use of the view, or use from another thread, fails with the JDK's
     * {@link IllegalStateException} / {@link WrongThreadException}.
     *
     * <p>That arena is the shield's, not the allocator's ({@link Region#scopedView}): a view kept
     * past the allocator's close keeps the region's address range mapped until the shield lets
     * go of it, and reads zeros meanwhile (the close gave the pages back), never unmapped
     * memory. In {@link dev.floe.memory.RegionMode#ARENA_CHUNKS} mode (no native access) the
     * view is a plain slice of the region instead: it dies with the allocator only, and a view
     * kept past this shield's close or re-defend may touch another object's bytes (misuse Floe
     * cannot detect there).
     *
     * @throws IllegalStateException if the shield is closed or defends nothing, or the heap's
     *                               allocator is closed
     */
    public MemorySegment segment() {
        MemorySegment d = data();
        if (!region.isOpen()) throw new IllegalStateException("the heap's allocator is closed");
        if (view == null) {
            Arena a = Arena.ofConfined();
            try {
                view = region.scopedView(d, a);
            } catch (RuntimeException e) {
                a.close();
                throw e;
            }
            viewArena = a;
        }
        return view;
    }

    /** Stops defending and frees the slot (paper: {@code Dispose()}); a second close does nothing. */
    @Override
    public void close() {
        if (!open) return;
        checkThread();
        dropObject();
        open = false;
        participant.release(slot);
        heap.slots().clear(slot); // release store: every access through this shield precedes it
    }

    /**
     * The object's bytes, checked first: a fresh slice of the region per call (for the writes and
     * bulk operations), which the JIT removes once the accessor is inlined.
     */
    private MemorySegment data() {
        return heap.objectData(defended());
    }

    /**
     * The region offset of the {@code width}-byte field at {@code offset} in the object, checked
     * first: the typed reads go through {@link Region#getBits} at that offset, so
     * no view of the object is built per read at any JIT tier (the region's segment bounds the
     * access to the region, this check to the object).
     */
    private long fieldAt(long offset, int width) {
        defended();
        Objects.checkFromIndexSize(offset, width, length);
        return base + offset;
    }

    private Region region() {
        return region;
    }

    /** The defended object's owner word, after the shield's checks. */
    private long defended() {
        checkUsable();
        if (ref == 0) throw new IllegalStateException("the shield defends no object");
        return ref;
    }

    /** Forgets the current object and kills its view (before its protection ends). */
    private void dropObject() {
        ref = 0;
        if (viewArena != null) {
            viewArena.close();
            viewArena = null;
            view = null;
        }
    }

    private void checkUsable() {
        checkThread();
        if (!open) throw new IllegalStateException("the shield is closed");
    }

    private void checkThread() {
        if (Thread.currentThread() != thread) {
            throw new WrongThreadException("a shield is used only by the thread that created it");
        }
    }
}
