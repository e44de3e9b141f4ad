package dev.floe.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * The unique owning reference to a manual object (Snowflake's {@code Owner<T>}, paper section
 * 3.2): the only way to obtain new {@link Shield shields} on the object, and the one place that
 * decides when the object dies.
 *
 * <ul>
 *   <li>{@link #defend()} opens a shield on the object (fails if the owner is empty);</li>
 *   <li>{@link #abandon()} empties the owner and schedules the object for reclamation once no
 *       shield protects it (paper: exchange with null, then {@code AddToDeleteList});</li>
 *   <li>{@link #move(Owner)} takes the object of another owner, which becomes empty; this
 *       owner's previous object, if any, is abandoned.</li>
 * </ul>
 * An owner may live in a field of any Java object and be shared between threads through it;
 * every operation is atomic (the reference is exchanged with one atomic operation), so two
 * threads abandoning the same owner cannot both succeed.
 *
 * <h2>Embedding an owner in its container</h2>
 * The paper's {@code Owner<T>} is a struct stored inline in the object that holds it (the cache
 * entry of its figure 5), so owning a manual object costs no extra managed object. A Java class
 * gets the same layout by extending {@code Owner}: the protected constructor makes an empty
 * owner, {@link ManualHeap#createInto} puts a new object in it (and {@link #move} works as for
 * any owner); the owner word is then a field of the container, and the object graph the
 * collector traces has one object fewer per manual object. Every method here is final and the
 * word is private, so a subclass can neither copy nor alter it ({@link #clone} is final and
 * refuses, also for a subclass that implements {@link Cloneable}; until 2026-11-24 such a
 * subclass could clone the word into a second owner). A serializable subclass cannot carry it
 * either: this class is not serializable and has no constructor without arguments, so such a
 * subclass fails to deserialize.
 *
 * <h2>What Java cannot check (see the package documentation)</h2>
 * The paper's compiler front end makes owners non-copyable. In Java the reference itself is
 * never exposed, so an object has exactly one owner as long as objects are only created by the
 * heap and moved with {@link #move}: there is no way to read or copy an owner's word. Holding the
 * same {@code Owner} object in two places is fine — it is still one owner.
 */
public class Owner {
    private static final VarHandle REF;

    private final ManualHeap heap;
    /** The object's owner word (length and block offset, see {@link ManualHeap}), or 0 when empty. */
    @SuppressWarnings("unused") // through REF
    private volatile long ref;

    /**
     * An empty owner of {@code heap}, for a class that embeds its owner by extending this one;
     * fill it with {@link ManualHeap#createInto} or {@link #move}.
     */
    protected Owner(ManualHeap heap) {
        this(Objects.requireNonNull(heap, "heap"), 0);
    }

    Owner(ManualHeap heap, long ref) {
        this.heap = heap;
        this.ref = ref; // volatile: the object's initialization happens-before any reader of ref
    }

    /** The heap this owner belongs to. */
    public final ManualHeap heap() {
        return heap;
    }

    /** Whether the owner holds no object (never filled, abandoned or moved from); a snapshot. */
    public final boolean isEmpty() {
        return ref == 0;
    }

    /**
     * Opens a shield on this owner's object (paper: {@code Owner.Defend()}).
     *
     * @throws IllegalStateException if the owner is empty (abandoned or moved from), or the heap's
     *                               allocator is closed
     */
    public final Shield defend() {
        Shield s = heap.newShield();
        try {
            s.defend(this);
            return s;
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    /**
     * Empties the owner and schedules its object for reclamation once no shield protects it.
     * Shields opened before keep working until they close.
     *
     * @throws IllegalStateException if the owner is already empty (double abandon, or moved from),
     *                               or the heap's allocator is closed (the owner is then unchanged)
     */
    public final void abandon() {
        heap.checkOpen();
        long old = (long) REF.getAndSet(this, 0L);
        if (old == 0) throw new IllegalStateException("owner is empty: already abandoned or moved from");
        heap.retire(old);
    }

    /**
     * Takes the object of {@code from} (which becomes empty); this owner's previous object, if
     * any, is abandoned (paper: {@code Owner.Move(ref x)}).
     *
     * @throws IllegalArgumentException if {@code from} is this owner or belongs to another heap
     * @throws IllegalStateException    if {@code from} is empty, or the heap's allocator is closed
     *                                  (both owners are then unchanged)
     */
    public final void move(Owner from) {
        Objects.requireNonNull(from, "from");
        if (from == this) throw new IllegalArgumentException("cannot move an owner onto itself");
        if (from.heap != heap) throw new IllegalArgumentException("owners of different heaps");
        heap.checkOpen(); // before either owner changes
        long taken = (long) REF.getAndSet(from, 0L);
        if (taken == 0) throw new IllegalStateException("the owner moved from is empty");
        install(taken);
    }

    /**
     * Makes {@code word} (a new or taken object) this owner's object and abandons the previous
     * one, if any. The exchange is a volatile write: whatever initialized the object before it
     * happens-before every defend that reads the word.
     */
    final void install(long word) {
        long old = (long) REF.getAndSet(this, word);
        if (old != 0) heap.retire(old);
    }

    /** The object, or 0 (volatile read): the load a shield's defend publishes. */
    final long refVolatile() {
        return ref;
    }

    @Override
    public String toString() {
        return isEmpty() ? "Owner[empty]" : "Owner[object]";
    }

    /**
     * Always throws: a copy of an owner would be a second owner of its object (a shield through
     * the copy after the original's abandon would read freed memory, and a second abandon would
     * free the block again). Final, so that a subclass that implements {@link Cloneable} cannot
     * copy the owner word with {@code Object.clone}.
     *
     * @throws CloneNotSupportedException always
     */
    @Override
    protected final Object clone() throws CloneNotSupportedException {
        throw new CloneNotSupportedException("an Owner cannot be copied (one owner per object): use move");
    }

    static {
        try {
            REF = MethodHandles.lookup().findVarHandle(Owner.class, "ref", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
