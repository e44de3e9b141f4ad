package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.util.Objects;

/**
 * How the lock-free structures of this package give the nodes they unlink back to the allocator.
 * One instance serves any number of structures on one {@link FloeAllocator}; any number of
 * platform or virtual threads may use it.
 *
 * <p>Four schemes share one protocol, driven by the structures:
 * <ul>
 *   <li>{@link #oaBit} and {@link #oaVer}: Optimistic Access on an allocator whose freed memory
 *       stays readable (the LRMalloc/OA paper, section 3.1, Algorithms 1–3). Readers traverse
 *       without any protection and check for a <em>warning</em> after each step; modifying steps
 *       publish hazard pointers on every node they CAS, then check the warning once.</li>
 *   <li>{@link #epochs} ({@code floe-ebr}): epoch-based reclamation; every operation announces the
 *       epoch it started in.</li>
 *   <li>{@link #none} ({@code nr}): never frees (the paper's NR baseline).</li>
 * </ul>
 *
 * <h2>Protocol for a structure</h2>
 * <pre>
 *   p = enter()                      // hold a participant, start watching for warnings
 *   seen = watchToken(p)             // at the start of each walk, kept in a local
 *   ... read a node's words; if (warned(p, seen)) { acknowledge(p); restart from the head }
 *   ... before a CAS: if (!protect(p, a, b, c)) { acknowledge(p); restart }   // hazards + check
 *       CAS; unprotect(p); after unlinking node n: retire(p, n)
 *   exit(p)                          // clear announcements, maybe reclaim, release the participant
 *
 *   t = enterRead()                  // a read-only walk: same checks through a token
 *   ... if (readWarned(t)) { t = readRestart(t); restart }      exitRead(t)
 * </pre>
 */
public abstract class Reclamation {
    /** Default limbo list capacity per participant for EBR (nodes retired before a reclamation). */
    public static final int DEFAULT_LIMBO_CAPACITY = 256;

    /**
     * Default limbo list capacity per participant for OA-BIT and OA-VER: 32 nodes. An OA pass
     * frees every node no hazard pointer holds, in one batch into the allocator's cache stripe,
     * whose bin for the 32-byte node class holds 128 blocks (a free into a full bin flushes its
     * older half to the shared superblock heap, an allocation from an empty one refills half).
     * When inserts match removes, a pass of 32 frees fits between those bounds, so the next
     * inserts reuse the freed nodes from the bin while they are still in the cache. A pass of 256
     * overflowed the bin every time, and the inserts then refilled cold blocks from the heap: on
     * {@code hash-10k-update} with one thread 75 ns of CPU per operation against 58 with 32 and
     * 56 for {@code nr} (docs/lockfree.md, "Where the time went"). EBR keeps
     * {@link #DEFAULT_LIMBO_CAPACITY}: its passes cannot free what the other threads' announced
     * epochs still cover, and 32 was slower there.
     */
    public static final int DEFAULT_OA_LIMBO_CAPACITY = 32;

    /**
     * The largest limbo list capacity: 2^16 nodes. A participant allocates its list (a node and a
     * stamp array of this length) up front, and there are at least four participants, so larger
     * values only cost memory (and {@code Integer.MAX_VALUE} would not even allocate).
     */
    public static final int MAX_LIMBO_CAPACITY = 1 << 16;

    final FloeAllocator allocator;
    final Participants participants;
    /** Restarts of read-only operations that borrow no participant (OA-VER). */
    final java.util.concurrent.atomic.LongAdder readerRestarts = new java.util.concurrent.atomic.LongAdder();

    Reclamation(FloeAllocator allocator, int limboCapacity) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        if (limboCapacity < 1 || limboCapacity > MAX_LIMBO_CAPACITY) {
            throw new IllegalArgumentException("limbo capacity must be in [1, " + MAX_LIMBO_CAPACITY + "]: " + limboCapacity);
        }
        this.participants = new Participants(
                Math.max(4, Runtime.getRuntime().availableProcessors() * 2), limboCapacity);
    }

    /** OA-BIT: one warning bit per participant, set by every reclaimer for everyone (Algorithm 1). */
    public static Reclamation oaBit(FloeAllocator allocator) {
        return new OaBitReclamation(allocator, DEFAULT_OA_LIMBO_CAPACITY);
    }

    /**
     * OA-BIT with a given limbo list capacity.
     *
     * @throws IllegalArgumentException if {@code limboCapacity} is not in {@code [1, MAX_LIMBO_CAPACITY]}
     */
    public static Reclamation oaBit(FloeAllocator allocator, int limboCapacity) {
        return new OaBitReclamation(allocator, limboCapacity);
    }

    /** OA-VER: a global monotonic clock, warnings piggy-backed (Algorithm 2). */
    public static Reclamation oaVer(FloeAllocator allocator) {
        return new OaVerReclamation(allocator, DEFAULT_OA_LIMBO_CAPACITY);
    }

    /**
     * OA-VER with a given limbo list capacity.
     *
     * @throws IllegalArgumentException if {@code limboCapacity} is not in {@code [1, MAX_LIMBO_CAPACITY]}
     */
    public static Reclamation oaVer(FloeAllocator allocator, int limboCapacity) {
        return new OaVerReclamation(allocator, limboCapacity);
    }

    /** Epoch-based reclamation ({@code floe-ebr}). */
    public static Reclamation epochs(FloeAllocator allocator) {
        return new EpochReclamation(allocator, DEFAULT_LIMBO_CAPACITY);
    }

    /**
     * Epoch-based reclamation with a given limbo list capacity.
     *
     * @throws IllegalArgumentException if {@code limboCapacity} is not in {@code [1, MAX_LIMBO_CAPACITY]}
     */
    public static Reclamation epochs(FloeAllocator allocator, int limboCapacity) {
        return new EpochReclamation(allocator, limboCapacity);
    }

    /** No reclamation ({@code nr}): unlinked nodes are never freed. */
    public static Reclamation none(FloeAllocator allocator) {
        return new NoReclamation(allocator);
    }

    /** The scheme's benchmark name: {@code oa-bit}, {@code oa-ver}, {@code floe-ebr} or {@code nr}. */
    public abstract String name();

    /** The allocator nodes come from and go back to. */
    public final FloeAllocator allocator() {
        return allocator;
    }

    /** Starts an operation: holds a participant (owned or borrowed) and begins watching for warnings. */
    abstract Participant enter();

    /** Ends an operation: drops announcements, reclaims if the limbo list asks for it, returns the participant. */
    abstract void exit(Participant p);

    /**
     * Reader's check, after the loads it validates: whether a reclamation may have freed memory
     * read since the last {@link #enter} or {@link #acknowledge}. If so, those reads must be
     * discarded and the operation restarted from a node that cannot have been freed.
     */
    abstract boolean warned(Participant p);

    /**
     * What {@link #warned(Participant, long)} compares with, read at the start of a walk (after
     * {@link #enter} or {@link #acknowledge}) and kept in a local: OA-VER's LocalClock, so that
     * the per-node check loads only the clock; 0, unused, for the other schemes.
     */
    long watchToken(Participant p) {
        return 0;
    }

    /** {@link #warned(Participant)} with the token {@link #watchToken} gave since the last acknowledge. */
    boolean warned(Participant p, long seen) {
        return warned(p);
    }

    /** Acknowledges a warning before restarting (counts the restart). */
    abstract void acknowledge(Participant p);

    /**
     * Publishes hazard pointers on the non-zero nodes among {@code a, b, c}, then checks for a
     * warning once; returns false (protection dropped) if the caller must restart. On true, the
     * nodes were not freed when protected and will not be until {@link #unprotect}.
     */
    abstract boolean protect(Participant p, long a, long b, long c);

    /**
     * Starts a read-only operation (a walk that CASes nothing) and returns a token for
     * {@link #readWarned}, {@link #readRestart} and {@link #exitRead}. By default the token is the
     * index of the participant {@link #enter} holds; OA-VER needs none (the token is the clock it read) and NR
     * returns 0, so their readers write nothing shared at all.
     */
    long enterRead() {
        return enter().index;
    }

    /** {@link #warned} for a read-only operation. */
    boolean readWarned(long token) {
        return warned(participants.all()[(int) token]);
    }

    /** {@link #acknowledge} for a read-only operation; returns the token to continue with. */
    long readRestart(long token) {
        acknowledge(participants.all()[(int) token]);
        return token;
    }

    /** Ends a read-only operation. */
    void exitRead(long token) {
        exit(participants.all()[(int) token]);
    }

    /** Drops the hazard pointers of {@link #protect}. */
    abstract void unprotect(Participant p);

    /** Hands over a node the caller has just unlinked (it is unreachable from every head). */
    abstract void retire(Participant p, long node);

    /**
     * Frees, as far as the scheme allows, the nodes waiting in the limbo lists of participants no
     * operation holds right now (a reclamation pass for each): free ones, the calling thread's
     * own, and those of threads that have ended. Use it after a bulk delete so that emptied
     * superblocks can go back to the OS; concurrent operations are allowed.
     *
     * <p>A platform thread that is alive keeps its participant between operations (see
     * {@code Participants}), and only that thread frees its limbo list: at the end of an
     * operation that finds it due, or when it calls this method. So up to a limbo list's
     * capacity of nodes per such thread may stay unfreed while the thread lives and does
     * nothing; call this method from the thread that deleted, as a bulk delete usually is, or
     * {@link #detachCurrentThread} from a thread that is done.
     */
    public void reclaimIdle() {
        participants.forEachIdle(p -> {
            if (p.limbo.size() > 0) reclaim(p);
        });
    }

    /**
     * Hands back the participant the calling thread owns, after one reclamation pass over its
     * limbo list: for a platform thread that is done with the structures on this scheme (a pool
     * worker being retired, a thread about to block for a long time), so that neither its limbo
     * list nor its place among the owners waits for the thread to end. The thread may go on using
     * the structures afterwards: it borrows a participant per operation and may own one again
     * later. Nodes a hazard pointer still protects stay in the limbo list, which the next holder
     * of the participant reclaims. Detach the threads that own participants before dropping the
     * last reference to this scheme: their limbo lists can only be freed through it.
     *
     * @return whether the calling thread owned a participant (virtual threads never do, nor
     *         platform threads beyond the owner cap)
     */
    public boolean detachCurrentThread() {
        return participants.disown(p -> {
            if (p.limbo.size() > 0) reclaim(p);
        });
    }

    /**
     * One reclamation pass over the limbo list of {@code p}, which the caller holds. None by
     * default: a scheme that never frees ({@link #none}) keeps its limbo lists empty.
     */
    void reclaim(Participant p) {
    }

    /** Counters summed over participants (exact when no operation runs). */
    public Stats stats() {
        long restarts = 0, warnings = 0, reclaims = 0, freed = 0, retired = 0, limbo = 0;
        Participant[] all = participants.all();
        for (Participant p : all) {
            restarts += p.restarts;
            warnings += p.warningsSent;
            reclaims += p.reclaims;
            freed += p.freed;
            retired += p.retired;
            limbo += p.limbo.size();
        }
        restarts += readerRestarts.sum();
        return new Stats(name(), all.length, retired, freed, limbo, reclaims, warnings, restarts);
    }

    /**
     * Counters of a scheme.
     *
     * @param participants participants created so far (owned ones plus the peak of borrowed ones, rounded up)
     * @param retired      nodes handed to {@link #retire}
     * @param freed        nodes given back to the allocator
     * @param inLimbo      retired nodes not yet freed
     * @param reclaims     reclamation passes (Algorithm 3)
     * @param warnings     warnings sent (OA: a round of warning bits or a clock increment; EBR:
     *                     epoch advances)
     * @param restarts     operations restarted because they saw a warning
     */
    public record Stats(String scheme, int participants, long retired, long freed, long inLimbo,
                        long reclaims, long warnings, long restarts) {}

    @Override
    public String toString() {
        return "Reclamation[" + stats() + "]";
    }
}
