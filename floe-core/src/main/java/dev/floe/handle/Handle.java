package dev.floe.handle;

/**
 * A handle (ALASKA's term): a plain {@code long} naming an object through the
 * {@linkplain HandleSpace handle table}, so the object can move while every copy of the handle
 * stays valid. Copies can live anywhere (fields, arrays, off-heap); they cost nothing to keep.
 *
 * <h2>Bit layout</h2>
 * <pre>
 *  63                              32 31                               0
 * +----------------------------------+----------------------------------+
 * |         version (32 bits)        |        handle id (32 bits)       |
 * +----------------------------------+----------------------------------+
 * </pre>
 * <ul>
 *   <li><b>id</b>: the index of the handle-table entry, from 1 ({@code 0} is never an id, so the
 *       handle {@code 0L} is {@link #NULL}); ids of freed handles are reused.</li>
 *   <li><b>version</b>: the entry's version when the handle was made, never 0. Every reuse of an
 *       id gives it the next version, so a stale copy of a freed handle never names the object
 *       that later got the same id (it would take 2^32 - 1 reuses of one id while the stale copy
 *       is kept for the versions to come round).</li>
 * </ul>
 * Any {@code long} may be passed where a handle is expected: one that names no live object makes
 * the operation fail with a {@link StaleHandleException}, never touch another object. A handle
 * belongs to the space that made it: each space starts its versions at a different value, so
 * another space fails it the same way, unless one of the two spaces reused that id at least
 * 2^32 / (4 × spaces made in the process) times more than the other (1.6·10^9 times with two
 * spaces).
 */
public final class Handle {
    /** The null handle: names nothing. */
    public static final long NULL = 0L;

    private static final long ID_MASK = 0xFFFF_FFFFL;

    private Handle() {}

    /** The handle with this id and version. */
    static long of(int id, int version) {
        return ((long) version << 32) | (id & ID_MASK);
    }

    /** The handle-table index this handle names (an unsigned 32-bit value). */
    public static long id(long handle) {
        return handle & ID_MASK;
    }

    /** The version this handle expects to find in its entry. */
    public static int version(long handle) {
        return (int) (handle >>> 32);
    }

    /** {@code handle(id=…, v=…)}, for messages. */
    public static String toString(long handle) {
        return "handle(id=" + id(handle) + ", v=" + Integer.toUnsignedString(version(handle)) + ")";
    }
}
