package dev.floe.reclaim;

/**
 * Nova's safe pointer: one primitive {@code long} that user code may copy and store anywhere
 * (a {@code long[]}, a field, a map entry) without telling Floe.
 *
 * <pre>
 *  63                         37  36  35                                0
 * +-----------------------------+---+------------------------------------+
 * |        version (27 bits)    | D |   reference: header offset &gt;&gt; 3   |
 * +-----------------------------+---+------------------------------------+
 * </pre>
 * <ul>
 *   <li><b>reference</b>: the offset of the slice's header in the region, divided by 8 (headers
 *       are 8-byte aligned): 36 bits address 512 GiB, the whole of any region Nova accepts.</li>
 *   <li><b>D</b>: the deleted bit. A pointer with it set fails every access without touching
 *       memory: the paper's local mark, which a holder of the pointer may set with
 *       {@link #markDeleted} after a delete or a failed access, so later uses fail at once.</li>
 *   <li><b>version</b>: the era in which the slice was allocated (27 bits, never 0). Equal to the
 *       header's version while this incarnation of the slice lives. Versions wrap after 2^27 eras;
 *       with one era per retire batch of {@code N} deletes (default 1000) that is about 134 billion
 *       deletes, 1.3–1.7 hours at the peak delete rate measured on a 2-core machine (22–29 M/s; see
 *       docs/reclaim.md for the risk and the ways to widen it).
 *       A stale pointer is only mistaken for a live one if it survives a whole wrap and its slice
 *       is reallocated in exactly the matching era.</li>
 * </ul>
 * The value 0 has version 0 and is never valid, so {@code 0} can serve as a null safe pointer.
 */
public final class SafePointer {
    /** A pointer that is never valid. */
    public static final long NULL = 0L;

    static final int REF_BITS = 36;
    static final long REF_MASK = (1L << REF_BITS) - 1;
    static final long DELETED = 1L << REF_BITS;
    static final int VERSION_SHIFT = REF_BITS + 1;
    /** Largest region offset a reference can hold (exclusive). */
    public static final long MAX_OFFSET = 1L << (REF_BITS + 3);

    private SafePointer() {}

    static long of(long headerOffset, int version) {
        return ((long) version << VERSION_SHIFT) | (headerOffset >>> 3);
    }

    /** Region offset of the slice's header. */
    public static long headerOffset(long ptr) {
        return (ptr & REF_MASK) << 3;
    }

    /** The version this pointer expects in the header. */
    public static int version(long ptr) {
        return (int) (ptr >>> VERSION_SHIFT);
    }

    /** Whether the pointer itself carries the deleted mark. */
    public static boolean isDeleted(long ptr) {
        return (ptr & DELETED) != 0;
    }

    /**
     * Whether the pointer alone shows it names no live slice: it carries the deleted mark, or
     * version 0 (never issued). Touches no memory.
     */
    static boolean cannotBeLive(long ptr) {
        return isDeleted(ptr) || version(ptr) == 0;
    }

    /** The same pointer with its deleted bit set. */
    public static long markDeleted(long ptr) {
        return ptr | DELETED;
    }

    /** The same pointer without its deleted bit (for a holder that marked it and must name the slice again). */
    public static long clearDeleted(long ptr) {
        return ptr & ~DELETED;
    }

    /** The pointer's fields, for messages: {@code SafePointer[header=..., version=...(, deleted)]}. */
    public static String toString(long ptr) {
        return "SafePointer[header=" + headerOffset(ptr) + ", version=" + version(ptr)
                + (isDeleted(ptr) ? ", deleted" : "") + "]";
    }
}
