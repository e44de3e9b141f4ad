package dev.floe.manual;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One counted reference to a manual object with several owners: Snowflake's {@code RefCount<T>}
 * (the paper's "sharing references on the heap": shareable pointers built around an owner), for
 * objects whose lifetime no single owner decides. A {@code RefCounted} is an ordinary Java object,
 * so it can be stored anywhere on the heap, which the paper's {@code Manual<T>} class also allows.
 *
 * <pre>{@code
 * RefCounted a = RefCounted.adopt(heap.create(64));   // count 1; the owner passed in is now empty
 * RefCounted b = a.retain();                          // count 2: hand b to another thread or structure
 * a.release();                                        // count 1
 * try (Shield s = b.defend()) { s.getLong(0); }
 * b.release();                                        // count 0: the object is abandoned
 * }</pre>
 *
 * <h2>How it is built on owners</h2>
 * All references to one object share one internal {@link Owner} and one counter. The counter
 * only moves from a positive value (increments are a CAS loop that refuses 0), so once the last
 * reference is released and the count reaches 0 nobody can revive it; that last release
 * {@linkplain Owner#abandon abandons} the owner, and the object is reclaimed by the heap's epoch
 * protocol once no shield protects it, exactly as for a uniquely owned object. Shields opened
 * through any reference keep working after the object is abandoned, until they close.
 *
 * <h2>Rules the class enforces</h2>
 * Each {@code RefCounted} is released at most once (a second {@link #release} throws), and a
 * released reference gives no new shield and no new reference. Holding the same
 * {@code RefCounted} object in several places is one reference: call {@link #retain} for each
 * holder that releases on its own.
 */
public final class RefCounted {
    private static final VarHandle RELEASED;

    private final Owner owner;
    private final AtomicLong count;
    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;

    private RefCounted(Owner owner, AtomicLong count) {
        this.owner = owner;
        this.count = count;
    }

    /**
     * Takes the object of {@code from} (which becomes empty, as after {@link Owner#move}) and
     * returns the first reference to it (count 1).
     *
     * @throws IllegalStateException if {@code from} is empty
     */
    public static RefCounted adopt(Owner from) {
        Objects.requireNonNull(from, "from");
        Owner shared = from.heap().newOwner();
        shared.move(from);
        return new RefCounted(shared, new AtomicLong(1));
    }

    /**
     * A new reference to the same object (count + 1).
     *
     * @throws IllegalStateException if this reference was released
     */
    public RefCounted retain() {
        checkLive();
        // This reference is live, so the count is >= 1 unless this same reference is being
        // released by another thread right now; refusing 0 keeps a dead object dead either way.
        long c;
        do {
            c = count.get();
            if (c == 0) throw new IllegalStateException("the object was released by its last reference");
        } while (!count.compareAndSet(c, c + 1));
        return new RefCounted(owner, count);
    }

    /**
     * Releases this reference; the last release abandons the object (it is reclaimed once no
     * shield protects it).
     *
     * @throws IllegalStateException if this reference was already released, or the heap's
     *                               allocator is closed (the reference then stays live)
     */
    public void release() {
        owner.heap().checkOpen(); // before the reference is marked: a refused release changes nothing
        if (!RELEASED.compareAndSet(this, false, true)) {
            throw new IllegalStateException("this reference was already released");
        }
        if (count.decrementAndGet() == 0) owner.abandon();
    }

    /**
     * Opens a shield on the object.
     *
     * @throws IllegalStateException if this reference was released
     */
    public Shield defend() {
        checkLive();
        return owner.defend(); // the owner is non-empty while this reference holds a count
    }

    /** Whether this reference was released. */
    public boolean isReleased() {
        return released;
    }

    /** References not yet released (a snapshot; 0 once the object was abandoned). */
    public long count() {
        return count.get();
    }

    private void checkLive() {
        if (released) throw new IllegalStateException("this reference was released");
    }

    @Override
    public String toString() {
        return released ? "RefCounted[released]" : "RefCounted[count=" + count.get() + "]";
    }

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(RefCounted.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
