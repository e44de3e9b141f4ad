package dev.floe.reclaim;

import java.util.Arrays;

/**
 * A reclaimer's summary of a {@link HazardSlots} table: the references announced at one moment,
 * sorted for binary search (the paper's compact summary of all shields, which Snowflake builds as
 * a Bloom filter), and the clock value read just before the scan. One pass over the slots per
 * sweep, then {@code O(log slots)} per candidate.
 *
 * <p>Reusable: {@link #take} overwrites the previous contents in the same buffer (grown only when
 * the table grew), so a reclaimer that keeps one snapshot scans without allocating (while fewer
 * than 44 references are announced at once, see {@link #take(HazardSlots)}). Not
 * thread-safe: one thread takes and queries it at a time ({@link EraLimbo} hands it from sweep to
 * sweep).
 */
public final class HazardSnapshot {
    private long[] refs;
    private int size;
    private long clockBefore;

    /** An empty snapshot; its buffer grows to the table's size at the first {@link #take}. */
    public HazardSnapshot() {
        this(16);
    }

    HazardSnapshot(int capacity) {
        refs = new long[capacity];
    }

    /**
     * Reads every slot of {@code slots} (volatile loads) and keeps the non-zero references,
     * sorted. The caller must have published the state change that the announcements are checked
     * against (with a fence) before calling this.
     *
     * @return this snapshot
     */
    public HazardSnapshot take(HazardSlots slots) {
        clockBefore = 0;
        return scan(slots);
    }

    /**
     * Reads {@code clock} (volatile load), then takes the slots as {@link #take(HazardSlots)}
     * does; {@link #clockBefore()} returns the clock value.
     *
     * @return this snapshot
     */
    public HazardSnapshot take(EraClock clock, HazardSlots slots) {
        clockBefore = clock.current(); // before the slot loads: see clockBefore()
        return scan(slots);
    }

    private HazardSnapshot scan(HazardSlots slots) {
        size = slots.scanInto(this);
        // In place. The JDK's sort allocates nothing below 44 entries (insertion sort); from 44
        // unsorted entries on it allocates a small run array (about 0.5 KB) per call: a table
        // with that many protections in flight at once pays it per scan.
        Arrays.sort(refs, 0, size);
        return this;
    }

    /** A buffer of at least {@code n} entries for {@link HazardSlots#scanInto} (grows, never shrinks). */
    long[] buffer(int n) {
        if (refs.length < n) refs = new long[Math.max(n, refs.length * 2)];
        return refs;
    }

    /**
     * The clock value that {@link #take(EraClock, HazardSlots)} read before the scan (0 after
     * {@link #take(HazardSlots)}): a rule that depends on the clock at the scan, as Snowflake's
     * epoch rule does, needs a reading that precedes every slot load.
     */
    public long clockBefore() {
        return clockBefore;
    }

    /** Whether {@code ref} was announced. */
    public boolean contains(long ref) {
        return size != 0 && Arrays.binarySearch(refs, 0, size, ref) >= 0;
    }

    /** Whether some announced value lies in {@code [from, to]}. */
    public boolean anyWithin(long from, long to) {
        int i = Arrays.binarySearch(refs, 0, size, from);
        if (i >= 0) return true;
        i = -i - 1; // first announced value above from
        return i < size && refs[i] <= to;
    }

    /** The smallest announced value, or {@link Long#MAX_VALUE} if none was announced. */
    public long smallest() {
        return size == 0 ? Long.MAX_VALUE : refs[0];
    }

    /** How many references were announced. */
    public int size() {
        return size;
    }

    /** The announced references, sorted, in a new array. */
    public long[] toArray() {
        return Arrays.copyOf(refs, size);
    }
}
