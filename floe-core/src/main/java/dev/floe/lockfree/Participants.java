package dev.floe.lockfree;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The table of {@link Participant}s of one {@link Reclamation}: the paper's "Threads", with any
 * thread model. An operation borrows a free participant with one CAS and returns it with a release
 * store. It first tries the participant the thread used last, then probes from a slot hashed
 * from the thread id, so a platform thread keeps its participant (and limbo list) warm. The table only grows (by a copy that keeps
 * every participant, published by CAS) when all participants are busy, so its size is bounded by
 * the peak number of concurrent operations, whatever the number of threads.
 *
 * <p>An OA-BIT reclaimer walks {@link #all()}: a participant appended after the reclaimer read
 * the table is first borrowed after that read, hence after every node the reclaimer frees was
 * unlinked, so it cannot reach one.
 */
final class Participants {
    private static final VarHandle TABLE;

    @SuppressWarnings("unused") // through TABLE
    private volatile Participant[] table;
    private final int limboCapacity;
    /**
     * The index of the participant this thread borrowed last, tried first. Without it two threads
     * whose ids hash to the same home slot keep trading participants (each takes the other's
     * when its own is busy), and every operation then moves a participant's cache lines (claim
     * word, counters, limbo list) between cores. One {@code int[1]} per thread and structure,
     * dropped with the thread.
     */
    private final ThreadLocal<int[]> lastUsed = ThreadLocal.withInitial(() -> new int[1]);

    Participants(int initial, int limboCapacity) {
        this.limboCapacity = limboCapacity;
        Participant[] t = new Participant[initial];
        for (int i = 0; i < initial; i++) t[i] = new Participant(i, limboCapacity);
        this.table = t;
    }

    /** Borrows a participant for one operation. */
    Participant acquire() {
        int[] last = lastUsed.get();
        Participant[] t = table;
        int hint = last[0];
        if (hint < t.length && t[hint].tryClaim()) return t[hint];
        int h = (int) ((Thread.currentThread().threadId() * 0x9E37_79B9_7F4A_7C15L) >>> 33);
        while (true) {
            int n = t.length;
            int start = h % n;
            for (int k = 0; k < n; k++) {
                int i = start + k;
                if (i >= n) i -= n;
                if (t[i].tryClaim()) {
                    last[0] = i;
                    return t[i];
                }
            }
            grow(t);
            t = table;
        }
    }

    /** Returns a borrowed participant. */
    void release(Participant p) {
        p.unclaim();
    }

    /** Every participant (a volatile read of the table). */
    Participant[] all() {
        return table;
    }

    private void grow(Participant[] seen) {
        Participant[] bigger = Arrays.copyOf(seen, seen.length * 2);
        for (int i = seen.length; i < bigger.length; i++) bigger[i] = new Participant(i, limboCapacity);
        TABLE.compareAndSet(this, seen, bigger); // losing the race is fine: someone grew it
    }

    static {
        try {
            TABLE = MethodHandles.lookup().findVarHandle(Participants.class, "table", Participant[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
