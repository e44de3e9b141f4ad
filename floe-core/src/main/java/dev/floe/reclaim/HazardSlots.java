package dev.floe.reclaim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Hazard slots: announcements, scanned by reclaimers, of references some thread is working on
 * right now. Nova's TAP (one slot per ongoing write), hazard pointers, pins and shields are all
 * this mechanism (ARCHITECTURE.md, shared mechanisms).
 *
 * <h2>Protocol</h2>
 * <ul>
 *   <li>{@link #protect}: a thread claims a free slot <em>and</em> publishes its reference in
 *       one CAS (0 → reference). The CAS is a full fence, so the announcement is visible before
 *       the caller's next load — the validation that must follow (Dekker-style with the
 *       reclaimer, which publishes its own state change before it {@linkplain #snapshot scans}).</li>
 *   <li>{@link #clear}: a release store of 0 ends the protection after the caller's writes.</li>
 *   <li>{@link HazardSnapshot#take} (or {@link #snapshot}): volatile loads of every slot into a
 *       sorted array for binary search, so a reclaimer pays one pass over the slots per batch,
 *       not per candidate; a {@link HazardSnapshot} reuses its array from scan to scan.</li>
 * </ul>
 * A slot is held only for the duration of one call, by exactly one thread (the CAS makes the
 * claim exclusive), so the table works for any number of platform or virtual threads: it grows
 * (by appending a segment, never moving a slot) only when more calls are in flight at once than
 * there are slots, and its size is bounded by the peak number of concurrent protections. Each
 * slot has its own cache line. The probe starts at a slot chosen by hashing the thread id, so a
 * thread usually reuses a warm line.
 *
 * <p>References must be non-zero (0 marks a free slot).
 */
public final class HazardSlots {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TABLE;
    /** Longs per slot: one cache line (64 bytes) each. */
    private static final int STRIDE = 8;

    /** The slots, {@code slots[i * STRIDE]}; replaced by a larger copy of references on growth. */
    @SuppressWarnings("unused") // through TABLE
    private volatile Segment[] table;

    /** A fixed group of slots; segments are only ever appended. */
    private static final class Segment {
        final long[] words;

        Segment(int slots) {
            words = new long[slots * STRIDE + STRIDE]; // trailing pad line
        }
    }

    /** Slots per segment: a power of two, so slot {@code i} is in segment {@code i >>> shift} at {@code i & mask}. */
    private final int segmentSlots;
    private final int segmentShift;
    private final int segmentMask;

    /** @param initialSlots slots of the first segment, rounded up to a power of two */
    public HazardSlots(int initialSlots) {
        if (initialSlots <= 0) throw new IllegalArgumentException("slots: " + initialSlots);
        this.segmentSlots = initialSlots == 1 ? 1 : Integer.highestOneBit(initialSlots - 1) << 1;
        this.segmentShift = Integer.numberOfTrailingZeros(segmentSlots);
        this.segmentMask = segmentSlots - 1;
        this.table = new Segment[] {new Segment(segmentSlots)};
    }

    /** A table sized for the machine: four slots per core, at least 16. */
    public HazardSlots() {
        this(Math.max(16, Runtime.getRuntime().availableProcessors() * 4));
    }

    /**
     * Publishes {@code ref} in a free slot and returns the slot's handle for {@link #clear}.
     * Full fence: the announcement is globally visible before any later load of the caller.
     */
    public int protect(long ref) {
        if (ref == 0) throw new IllegalArgumentException("hazard reference must be non-zero");
        long id = Thread.currentThread().threadId();
        while (true) {
            Segment[] t = table;
            int total = t.length * segmentSlots;
            int start = (int) ((id * 0x9E37_79B9_7F4A_7C15L) >>> 33) % total;
            for (int k = 0; k < total; k++) {
                int i = start + k;
                if (i >= total) i -= total;
                long[] words = t[i >>> segmentShift].words;
                int w = (i & segmentMask) * STRIDE;
                // opaque: only a hint that skips held slots; the CAS claims, publishes and fences
                if ((long) SLOT.getOpaque(words, w) == 0 && SLOT.compareAndSet(words, w, 0L, ref)) {
                    return i;
                }
            }
            grow(t);
        }
    }

    /**
     * Re-points a slot the caller holds (taken by {@link #protect}, not yet cleared) at
     * {@code ref}, with a release store: the slot's previous reference is no longer protected.
     * Only the holder writes a held slot, so no CAS is needed; a scheme that must order this store
     * before a later load of its own follows it with a fence or an RMW (Snowflake's shields do:
     * see {@code dev.floe.manual.Shield}).
     */
    public void publish(int slot, long ref) {
        if (ref == 0) throw new IllegalArgumentException("hazard reference must be non-zero");
        Segment[] t = table;
        SLOT.setRelease(t[slot >>> segmentShift].words, (slot & segmentMask) * STRIDE, ref);
    }

    /** Ends the protection taken by {@link #protect} (release store). */
    public void clear(int slot) {
        Segment[] t = table;
        SLOT.setRelease(t[slot >>> segmentShift].words, (slot & segmentMask) * STRIDE, 0L);
    }

    /**
     * The references protected right now, sorted, in a new array (a reclaimer must have published
     * its own state change, with a fence, before calling this). Reclaimers that scan repeatedly
     * keep a {@link HazardSnapshot} instead, which reuses its buffer.
     */
    public long[] snapshot() {
        return new HazardSnapshot(capacity()).take(this).toArray();
    }

    /** Whether {@code ref} is in a {@link #snapshot}. */
    public static boolean contains(long[] snapshot, long ref) {
        return snapshot.length != 0 && Arrays.binarySearch(snapshot, ref) >= 0;
    }

    /**
     * Volatile loads of every slot; the non-zero ones go to the front of {@code into}'s buffer
     * (unsorted). Returns how many. One pass over the table as it is at the first load: slots of a
     * segment appended later are free until a later protect, which a later scan sees.
     */
    int scanInto(HazardSnapshot into) {
        Segment[] t = table;
        long[] out = into.buffer(t.length * segmentSlots);
        int n = 0;
        for (Segment s : t) {
            for (int w = 0; w < segmentSlots * STRIDE; w += STRIDE) {
                long v = (long) SLOT.getVolatile(s.words, w);
                if (v != 0) out[n++] = v;
            }
        }
        return n;
    }

    /** Number of slots (grows with the peak number of concurrent protections). */
    public int capacity() {
        return table.length * segmentSlots;
    }

    private void grow(Segment[] seen) {
        Segment[] bigger = Arrays.copyOf(seen, seen.length + 1);
        bigger[seen.length] = new Segment(segmentSlots);
        TABLE.compareAndSet(this, seen, bigger); // losing the race is fine: someone grew it
    }

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(HazardSlots.class, "table", Segment[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
