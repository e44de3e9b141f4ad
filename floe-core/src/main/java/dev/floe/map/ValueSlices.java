package dev.floe.map;

import dev.floe.memory.Region;
import dev.floe.reclaim.Backoff;
import dev.floe.reclaim.Nova;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.Function;

/**
 * How a value lives off-heap: one Nova slice per value, whose first 16 bytes are the value's own
 * concurrency control (the job of the Oak paper's per-value "handle", without an on-heap object).
 *
 * <pre>
 * slice data:  +0  lock word (8 B, CAS)   +8  forward word (8 B)   +16  value bytes (capacity)
 * out of line: +0  lock word              +8  forward word         (Nova's run word: the value's run)
 *
 * forward word: 0                 no holder, not moved
 *               holder mark       the holding thread's id while it holds C (below 2^37)
 *               forward pointer   with M: the slice that holds the value now (at least 2^37)
 *
 * lock word:    63              32 31                5   4   3   2   1   0
 *              +------------------+-------------------+---+---+---+---+---+
 *              |  length (bytes)  |  seq (27 bits)    | C | O | R | M | L |
 *              +------------------+-------------------+---+---+---+---+---+
 * </pre>
 * <ul>
 *   <li><b>C</b> (claimed): a writer holds the value. Writers of the same value exclude each other
 *       by CASing C on, so compute runs atomically and exactly once. While only C is set the
 *       holder has changed no byte (it deserializes the value, runs a legacy compute function or
 *       an {@code equals}), so readers read the value as it is, without waiting. Releasing stores
 *       the word with C and L off and seq + 1 (release), so every completed write changes the
 *       word.</li>
 *   <li><b>L</b> (locked for writing): the holder is changing the value's bytes (in place, or
 *       moving the value). Set with C by a writer that writes at once (a zero-copy writer or put),
 *       or later by the holder ({@link #beginWrite}) before its first store to the value; cleared
 *       with C. Readers wait while L is set.</li>
 *   <li><b>R</b> (removed): the lock holder removed the key; final. This store is the
 *       linearization point of remove. The slice is then deleted through Nova.</li>
 *   <li><b>M</b> (moved): the value grew beyond its capacity, a new slice holds it and the
 *       forward pointer (written before M, published by the same release store) names it; final.
 *       The map's entry already points to the new slice when M appears.</li>
 *   <li><b>length</b>: the value's current size, at most the capacity (the slice length - 16,
 *       rounded up to the block the allocator gives anyway, so values can grow in place).</li>
 *   <li><b>O</b> (out of line): the value is larger than a slice can hold, so its bytes live in
 *       the slice's attached run ({@link Nova#allocateWithRun}: a large allocator block that Nova
 *       frees together with the slice) and the slice holds only the 16 bytes above; the run's
 *       offset is Nova's run word, right after them. Fixed for the slice's life, like the run.
 *       Every protocol below is unchanged: the lock word and the Nova header still live in the
 *       slice, and a writer's hazard slot on the slice keeps the run from being freed too. A
 *       reader loads the run offset inside its optimistic window; if the slice was reused that
 *       offset is garbage, so the view over it may lie anywhere in the region (which stays mapped,
 *       ARCHITECTURE.md invariant 1) or outside it (an {@link IndexOutOfBoundsException}, caught),
 *       and the validation that follows fails.</li>
 * </ul>
 *
 * <h2>Readers write nothing shared</h2>
 * A read is a seqlock read inside a Nova optimistic read: Nova stamp (acquire), lock word
 * (acquire; wait while L, stop at R or M; C alone does not stop it), the user's loads, a load
 * fence, then the lock word must be unchanged (no write completed or started meanwhile: both
 * set L or change seq) and the Nova header unchanged (the
 * slice was not deleted and reused: a reused slice could carry an equal lock word). Both checks
 * are needed; either alone accepts a torn or foreign value.
 *
 * <h2>Scans and zero-copy gets: the lock word first</h2>
 * The hot paths ({@link #snapshot}, {@link #readBitsSince}) read in a cheaper order that needs
 * no stamp: lock word (acquire), the user's loads, a load fence, the lock word again (acquire,
 * must be unchanged), and last the Nova header (plain, {@link Nova#isLiveOwned}: the pointer's
 * incarnation still live). Why that suffices: every pointer the map reads a value through was
 * published after its slice was allocated and initialised (entry CAS, chunk fill, or the forward
 * pointer under the M release store) and the reader acquired it, so the incarnation it names
 * began before the reader's first lock-word load. A version names one incarnation and a deleted
 * one never becomes live again (its block is reissued with a new version), so a header that
 * shows it live after the loads means it was live throughout them: no load in between read a
 * later incarnation's bytes. (As for every optimistic read here and in StampedLock, that last
 * step rests on the ordering of the reader's loads, the fence and acquires above, and on the
 * later incarnation's writes following the delete CAS and the allocator's CASes that hand its
 * block out.) Within one incarnation the seqlock argument is the usual one. The cursor's presence
 * check is the first half of this read (lock word, header); a stream buffer's first read
 * continues from it. Every store of a lock word is a release store or a CAS, including the
 * initial one in {@link #allocate}.
 *
 * <h2>Writers</h2>
 * A writer protects the slice with a Nova hazard slot first (so it cannot be freed and reused
 * under the lock CAS), then CASes C on (with L if it writes at once). R and M are only set by a
 * lock holder, so a writer that sees them gives up (R) or follows the forward pointer (M) and
 * starts over. Only the holder stores the lock word while C is set.
 *
 * <h2>A thread that waits for itself</h2>
 * A holder runs user code (a compute function, a zero-copy writer, a serializer, an
 * {@code equals}); if that code updates the same key through the map, or a zero-copy writer reads
 * it, the call would wait for the holder, that is for itself, for ever. So the holder marks the
 * forward word with its thread id right after its lock CAS and clears it before the store that
 * releases the value, and a wait that has spun for a while ({@link #SELF_CHECK_SPINS}) looks
 * once: if the word holds the waiting thread's own id, the thread holds the value and the call
 * throws {@link IllegalStateException} instead of hanging. No false alarm: only holders store
 * their own id there, each clears it before its release, and a thread sees its own last store, so
 * a thread reads its own id only between its lock CAS and its clearing store, that is while it
 * holds the value; a forward pointer is never a thread id (its version, bits 37 and up, is never
 * 0; an id of 2^37 or more is not recorded), and a read of another incarnation's bytes is ruled
 * out by the hazard slot (lock) or the Nova validation that follows the load (reads). The marks
 * cost the holder two plain stores to the lock word's cache line, which its CAS owns already.
 * Another thread that the holder waits for (a task it joins that updates the key) still
 * deadlocks with it: that is the documented restriction, as for {@code ConcurrentHashMap}.
 *
 * <h2>Why a claim lets readers through</h2>
 * A holder that runs user code before it writes (a legacy compute function, a conditional
 * remove's {@code equals}) would otherwise keep every reader of its key waiting for as long as
 * that code runs, and a function that waits for another thread's read of its key (a parallel
 * stream over the map, a task it joins) would wait forever. With the claim split from the write
 * lock, such a function may read its own key in its own thread or any other and sees the value
 * as it was before the update, as {@code ConcurrentSkipListMap}'s functions do. The seqlock is
 * unchanged for every byte that changes: those stores all come after L (see {@link #beginWrite}).
 */
final class ValueSlices {
    /** Word accessor over a block view ({@link Nova#blockView}): coordinates (segment, offset). */
    private static final VarHandle WORD = java.lang.foreign.ValueLayout.JAVA_LONG.varHandle();
    static final long LOCKED = 1, MOVED = 2, REMOVED = 4, OUT_OF_LINE = 8, CLAIMED = 16;
    /** The bits a holder sets (C, and L once it writes) and its release clears. */
    private static final long HOLDER_BITS = CLAIMED | LOCKED;
    static final long SEQ_ONE = 32;
    static final long SEQ_MASK = 0xFFFF_FFE0L;
    /** Concurrency-control bytes in front of the value. */
    static final int HEADER = 16;
    /** Spins after which a wait checks once whether the waiting thread holds the value itself. */
    static final int SELF_CHECK_SPINS = 64;
    /** Forward pointers are at least this (a version is never 0); smaller words are holder marks. */
    private static final long FIRST_POINTER = 1L << 37;
    /** Returned by reads when the slice no longer holds the value (moved or removed). */
    static final Object GONE = new Object();
    /** {@link #resolve} result when a chain of moves cannot be followed (never a valid pointer). */
    static final long LOST = -1L;

    final Nova nova;
    final Region region;
    /** Nova's header bytes in front of every slice's data ({@link Nova#headerBytes}). */
    private final int headerBytes;
    /** Largest value kept in the slice itself; larger ones live out of line. */
    final int inlineMax;
    /** Largest value size: what the allocator can give one run, within an {@code int}. */
    final int maxValue;

    ValueSlices(Nova nova) {
        this.nova = nova;
        this.headerBytes = nova.headerBytes();
        this.region = nova.region();
        this.inlineMax = (int) (nova.maxSlice() - HEADER);
        this.maxValue = (int) Math.min(Integer.MAX_VALUE - 8, nova.allocator().maxAllocation());
    }

    static int length(long lockWord) {
        return (int) (lockWord >>> 32);
    }

    static long withLength(long lockWord, int length) {
        return (lockWord & 0xFFFF_FFFFL) | ((long) length << 32);
    }

    /**
     * Allocates a private value slice with room for at least {@code size} bytes (the whole
     * allocator block, or run: growth up to it needs no move) and returns its pointer; the value
     * bytes are the caller's to fill through {@link #privateView} before publishing the pointer.
     * A value above {@link #inlineMax} goes out of line (O, above).
     */
    long allocate(int size) {
        checkSize(size);
        if (size > inlineMax) return allocateOutOfLine(size);
        long wanted = size + HEADER + nova.headerBytes();
        long block = nova.allocator().usableSizeFor(wanted);
        return initialise(nova.allocate(block - nova.headerBytes()), 0, size);
    }

    /** Throws {@link IllegalArgumentException} unless a value of {@code size} bytes can be stored. */
    void checkSize(int size) {
        if (size < 0 || size > maxValue) {
            throw new IllegalArgumentException("value of " + size + " bytes; values hold 0 to " + maxValue + " bytes");
        }
    }

    /** Writes a new slice's forward pointer and first lock word (flags, length); returns {@code ptr}. */
    private long initialise(long ptr, long flags, int size) {
        long at = nova.dataOffset(ptr);
        region.setLongPlain(at + 8, 0);
        // published with the pointer (CAS or release); a release store itself so that every lock
        // word store is one (see "the lock word first" above)
        region.setLongRelease(at, withLength(flags, size));
        return ptr;
    }

    /*
     * The out-of-line cases of allocate, capacity and privateView are methods of their own, so
     * that the inline paths (every value up to 16 KiB) stay as small as they were for the JIT's
     * inlining budget of the callers (put and compute inline them).
     */

    private long allocateOutOfLine(int size) {
        return initialise(nova.allocateWithRun(HEADER, size), OUT_OF_LINE, size);
    }

    /**
     * Whether a value of {@code size} bytes is written into the value slice {@code ptr} (the
     * caller owns or locks it) in place: it fits the capacity and, if the slice is out of line
     * (a capacity above {@link #inlineMax}), fills at least a quarter of its run. An out-of-line
     * value that shrinks further moves to a block of its own size, so that shrinking gives memory
     * back (a value that shrank from 1 MiB to 100 bytes would otherwise keep its megabyte until
     * removed); the factor of four keeps one that shrinks a little in place. Inline values (at
     * most 16 KiB of slack) always shrink in place: a value whose size goes up and down would
     * otherwise move at every write, and every move shortens the time a held buffer can follow
     * it ({@link ValueBuffer}).
     */
    boolean fitsInPlace(long ptr, int size) {
        int capacity = capacity(ptr);
        return size <= capacity && (capacity <= inlineMax || size >= capacity >>> 2);
    }

    /** Capacity of the value slice {@code ptr} (the caller owns or locks it). */
    int capacity(long ptr) {
        long st = nova.beginReadOwned(ptr);
        if (st == 0) return 0;
        return Nova.hasRun(st) ? runCapacity(ptr, st) : (int) (Nova.stampLength(st) - HEADER);
    }

    private int runCapacity(long ptr, long stamp) {
        return (int) Math.min(maxValue, nova.allocator().usableSize(nova.runOf(ptr, stamp)));
    }

    /** Sets the value length of a private slice (before it is published). */
    void setPrivateLength(long ptr, int size) {
        long at = nova.dataOffset(ptr);
        long flags = region.getLongPlain(at) & OUT_OF_LINE;
        region.setLongRelease(at, withLength(flags, size)); // release: see allocate
    }

    /** A writable view of the first {@code size} value bytes of a slice the caller owns or locks. */
    MemorySegment privateView(long ptr, int size) {
        long at = nova.dataOffset(ptr);
        // plain: O is fixed for the slice's life; the owner wrote it, the locker's CAS acquired it
        if ((region.getLongPlain(at) & OUT_OF_LINE) != 0) return runView(at, size);
        return region.slice(at + HEADER, size);
    }

    private MemorySegment runView(long at, int size) {
        return region.slice(runAt(at), size);
    }

    /**
     * Region offset of the value bytes of the slice whose data starts at {@code at} and whose lock
     * word (as read) is {@code lw}: right after the 16 bytes, or, out of line, the run (Nova's run
     * word follows the slice's 16 data bytes; a plain load, written before the lock word's first
     * release store). For a reader it is optimistic like every other load.
     */
    private long valueAt(long at, long lw) {
        return (lw & OUT_OF_LINE) == 0 ? at + HEADER : runAt(at);
    }

    /** The run of the out-of-line value whose slice data starts at {@code at}: Nova's run word, after the 16 bytes. */
    private long runAt(long at) {
        return region.getLongPlain(at + HEADER);
    }

    /**
     * Runs {@code reader} on a read-only view of the value's bytes and returns its result if the
     * value was stable throughout; {@link #GONE} if this slice no longer holds the value (it was
     * removed or moved: {@link #resolve} tells which). Waits while a writer writes the value (L);
     * a value only claimed (C) is read as it is.
     * The reader may run more than once (on a concurrent write) and must have no side effects.
     */
    Object read(long ptr, Function<MemorySegment, ?> reader) {
        for (int spins = 0; ; spins++) {
            long st = nova.beginReadOwned(ptr);
            if (st == 0 || Nova.isDeletedStamp(st)) return GONE;
            long at = nova.dataOffset(ptr);
            long lw = region.getLongAcquire(at);
            if ((lw & (REMOVED | MOVED)) != 0) return GONE;
            if ((lw & LOCKED) != 0) {
                if (spins == SELF_CHECK_SPINS && heldByCurrentThread(ptr)) throw waitsForItself();
                Backoff.step(spins);
                continue;
            }
            Object r;
            try {
                r = reader.apply(region.slice(valueAt(at, lw), length(lw)).asReadOnly());
            } catch (Throwable e) { // also Errors: a torn or foreign value can make user code allocate or recurse wildly
                if (stable(ptr, st, at, lw)) throw e; // the user's own failure on a stable value
                continue;                            // it read a torn or foreign value: again
            }
            if (stable(ptr, st, at, lw)) return r;
        }
    }

    /**
     * A primitive read without a reader object: the raw bits of the {@code width}-byte field at
     * {@code offset} (1, 2, 4 or 8 bytes, native order, sign-extended), under the same protocol
     * as {@link #read}. Throws {@link #GONE_SIGNAL} when the slice no longer holds the value (the
     * caller resolves; rare, so a preallocated exception costs nothing on the fast path) and
     * {@link IndexOutOfBoundsException} for a field outside the value.
     */
    long readBits(long ptr, long offset, int width) {
        for (int spins = 0; ; spins++) {
            long st = nova.beginReadOwned(ptr);
            if (st == 0 || Nova.isDeletedStamp(st)) throw GONE_SIGNAL;
            long at = nova.dataOffset(ptr);
            long lw = region.getLongAcquire(at);
            if ((lw & (REMOVED | MOVED)) != 0) throw GONE_SIGNAL;
            if ((lw & LOCKED) != 0) {
                if (spins == SELF_CHECK_SPINS && heldByCurrentThread(ptr)) throw waitsForItself();
                Backoff.step(spins);
                continue;
            }
            long bits;
            try {
                long field = checkedField(offset, width, lw);
                bits = region.getBits(valueAt(at, lw) + field, width);
            } catch (IndexOutOfBoundsException e) {
                if (stable(ptr, st, at, lw)) throw e; // outside a stable value: the caller's error
                continue;                             // (or a reused slice's run word: again)
            }
            if (stable(ptr, st, at, lw)) return bits;
        }
    }

    /**
     * The lock word of the value in {@code ptr} (a pointer the caller acquired, see "the lock word
     * first" above) if the value is present there: live, not locked, not moved, not removed; else
     * 0 and the caller resolves. One acquire load and one plain load: the lock word, then the
     * Nova header, which proves the lock word was this incarnation's. The returned word is the
     * snapshot {@link #readBitsSince} continues from. (A lock word of 0, memory never written or
     * given back, also returns 0: the caller's slow path handles it.)
     */
    long snapshot(long ptr) {
        long lw = lockWordAcquire(ptr);
        return isPresent(lw) && stillLive(ptr) ? lw : 0;
    }

    /**
     * The first half of {@link #snapshot}: the lock word of {@code ptr}'s slice (acquire load:
     * LoadLoad before every later load, the header check's included). Tells nothing until
     * {@link #stillLive} or {@link #sameIncarnation} confirms it was this incarnation's.
     */
    long lockWordAcquire(long ptr) {
        return region.getLongAcquire(nova.dataOffset(ptr));
    }

    /**
     * {@link #lockWordAcquire} with a plain load, for a caller that puts an acquire fence after
     * it (a batch of loads, one fence: see {@code Cursor.readAhead}).
     */
    long lockWordPlain(long ptr) {
        return region.getLongPlain(nova.dataOffset(ptr));
    }

    /**
     * Whether lock word {@code lw} shows a present value: written, not locked for writing, moved or
     * removed (a claimed value is present: its bytes are the value until L appears).
     */
    static boolean isPresent(long lw) {
        return lw > 0 && (lw & (REMOVED | MOVED | LOCKED)) == 0;
    }

    /** Whether lock word {@code lw} shows a removed value (that was not moved). */
    static boolean isRemoved(long lw) {
        return (lw & (REMOVED | MOVED)) == REMOVED;
    }

    /**
     * The second half of {@link #snapshot}: whether {@code ptr}'s incarnation is still live, so
     * that a lock word acquired from it earlier was its own (one plain header load, ordered after
     * that acquire).
     */
    boolean stillLive(long ptr) {
        return nova.isLiveOwned(ptr);
    }

    /**
     * The second half for a lock word that shows the value removed: whether {@code ptr}'s
     * incarnation, deleted or not, still holds its block, so that the lock word acquired from it
     * earlier was its own and the value was removed when it was read (R is final, and is stored
     * before the slice is deleted).
     */
    boolean sameIncarnation(long ptr) {
        return nova.beginReadOwned(ptr) != 0;
    }

    /**
     * {@link #readBits} continued from a {@link #snapshot} {@code lockWord}: the data loads, a load
     * fence, the lock word again (acquire, unchanged: no write began or completed since the
     * snapshot), then the header (the incarnation still live, so every load since the snapshot
     * read its bytes). Throws {@link #GONE_SIGNAL} if the value changed since the snapshot (the
     * caller reads afresh).
     */
    long readBitsSince(long ptr, long lockWord, long offset, int width) {
        if ((lockWord & OUT_OF_LINE) != 0) return readBitsSinceOutOfLine(ptr, lockWord, offset, width);
        int len = length(lockWord);
        boolean inside = offset >= 0 && offset <= len - width;
        // One view of the block (Nova header, lock word, value) for all three loads: the JIT keeps
        // it in registers across the fence, where loads through the region would re-derive the
        // region's segment and re-check it after the fence. inside bounds the field to the value.
        // Everything the checks after the fence need is taken before it (the header expectation
        // is a function of the pointer), and the header is read through the same view.
        long lockAt = headerBytes;
        long live = nova.liveHeaderExpectation(ptr);
        MemorySegment block = nova.blockView(ptr, HEADER + len);
        long bits = inside ? Region.bits(block, lockAt + HEADER + offset, width) : 0;
        VarHandle.loadLoadFence(); // the data loads before the re-check
        if ((long) WORD.getAcquire(block, lockAt) != lockWord) throw GONE_SIGNAL;
        // acquire above: the lock word before the header
        if (live != 0 ? !Nova.isLiveHeader((long) WORD.get(block, 0L), live) : !nova.isLiveOwned(ptr)) throw GONE_SIGNAL;
        if (!inside) throw fieldOutside(offset, width, len);
        return bits;
    }

    /**
     * {@link #readBitsSince} for an out-of-line value: the same loads, fence and checks, with the
     * field read from the run (through the region: the run is not in the slice's block).
     */
    private long readBitsSinceOutOfLine(long ptr, long lockWord, long offset, int width) {
        int len = length(lockWord);
        boolean inside = offset >= 0 && offset <= len - width;
        long at = nova.dataOffset(ptr);
        long bits = 0;
        if (inside) {
            try {
                bits = region.getBits(valueAt(at, lockWord) + offset, width);
            } catch (IndexOutOfBoundsException e) {
                throw GONE_SIGNAL; // a reused slice's run word pointed outside the region
            }
        }
        VarHandle.loadLoadFence(); // the data loads before the re-check
        if (region.getLongAcquire(at) != lockWord) throw GONE_SIGNAL;
        if (!nova.isLiveOwned(ptr)) throw GONE_SIGNAL; // acquire above: the lock word before the header
        if (!inside) throw fieldOutside(offset, width, len);
        return bits;
    }

    /** {@code offset} if a {@code width}-byte field there lies inside a value of lock word {@code lw}. */
    private static long checkedField(long offset, int width, long lw) {
        int len = length(lw);
        if (offset >= 0 && offset <= len - width) return offset;
        throw fieldOutside(offset, width, len);
    }

    /** The error for a field outside the value (built out of line: keeps the read paths small enough to inline). */
    private static IndexOutOfBoundsException fieldOutside(long offset, int width, int len) {
        return new IndexOutOfBoundsException("field of " + width + " bytes at " + offset + " in a value of " + len + " bytes");
    }

    /** {@link #readBits}'s "the slice no longer holds the value" (no stack trace: control flow). */
    static final RuntimeException GONE_SIGNAL = new RuntimeException("value slice gone", null, false, false) { };

    /** The seqlock and Nova re-check (load fence first, inside {@link Nova#validate}). */
    private boolean stable(long ptr, long stamp, long at, long lockWord) {
        return nova.validate(ptr, stamp) && region.getLongPlain(at) == lockWord; // plain: after validate's fence
    }

    /**
     * Follows moves from {@code ptr}: the slice that holds the value now; 0 if the value was
     * removed; {@link #LOST} if a moved-from slice on the way was already reused, so the chain
     * cannot be followed (the caller looks the key up again).
     */
    long resolve(long ptr) {
        while (true) {
            long st = nova.beginReadOwned(ptr);
            if (st == 0) return LOST;
            long at = nova.dataOffset(ptr);
            long lw = region.getLongAcquire(at);
            if ((lw & MOVED) != 0) {
                long forward = region.getLongPlain(at + 8); // written before M's release store
                if (nova.validate(ptr, st)) ptr = forward;
                continue;
            }
            if (!nova.validate(ptr, st)) continue;
            if ((lw & REMOVED) != 0 || Nova.isDeletedStamp(st)) return 0;
            return ptr;
        }
    }

    /**
     * Whether the value in {@code ptr} is present and no writer holds it for writing, waiting
     * while one does (L): false if it was removed or moved (the caller looks again). What
     * {@code containsKey} answers from: a poll takes effect while it holds L, before its removal
     * store, so a key it polled must not be reported present in between.
     */
    boolean presentAfterWriter(long ptr) {
        for (int spins = 0; ; spins++) {
            long lw = lockWordIfLive(ptr);
            if (lw < 0 || (lw & (REMOVED | MOVED)) != 0) return false;
            if ((lw & LOCKED) == 0) return true;
            if (spins == SELF_CHECK_SPINS && heldByCurrentThread(ptr)) throw waitsForItself();
            Backoff.step(spins);
        }
    }

    /** Whether the value in {@code ptr} is present (not removed); follows no moves. */
    boolean isLive(long ptr) {
        long lw = lockWordIfLive(ptr);
        return lw >= 0 && (lw & REMOVED) == 0;
    }

    /**
     * The lock word of {@code ptr}'s slice, read inside a Nova optimistic read so that it is this
     * incarnation's; -1 (never a lock word: the length keeps the sign bit clear) if the incarnation
     * was deleted, which happens only after its value was removed or moved away, for good.
     */
    private long lockWordIfLive(long ptr) {
        while (true) {
            long st = nova.beginReadOwned(ptr);
            if (st == 0 || Nova.isDeletedStamp(st)) return -1;
            long lw = region.getLongAcquire(nova.dataOffset(ptr));
            if (nova.validate(ptr, st)) return lw;
        }
    }

    /**
     * Whether the calling thread holds the value in {@code ptr}: its mark in the forward word, read
     * inside a Nova optimistic read so that the word was this incarnation's (see "A thread that
     * waits for itself" above). For the slow path of a wait only.
     */
    private boolean heldByCurrentThread(long ptr) {
        long st = nova.beginReadOwned(ptr);
        if (st == 0 || Nova.isDeletedStamp(st)) return false;
        return markedByCurrentThread(nova.dataOffset(ptr)) && nova.validate(ptr, st);
    }

    /** Whether the forward word of the slice whose data starts at {@code at} holds this thread's mark. */
    private boolean markedByCurrentThread(long at) {
        long mark = holderMark();
        return mark != 0 && region.getLongPlain(at + 8) == mark;
    }

    /** The calling thread's mark for the forward word: its id, or 0 (no mark) if it is 2^37 or more. */
    private static long holderMark() {
        long id = Thread.currentThread().threadId();
        return id < FIRST_POINTER ? id : 0;
    }

    /** What a call that would wait for its own thread throws (see "A thread that waits for itself"). */
    private static IllegalStateException waitsForItself() {
        return new IllegalStateException("this thread holds the value of this key (a compute function, zero-copy writer, "
                + "serializer or equals of the key runs in it): it must not update the key through the map, and a "
                + "zero-copy writer must not read it through the map either; the call would wait for itself");
    }

    /**
     * Claims the value for an update: protects the slice with a hazard slot, then CASes C on (and
     * L too if {@code write}: the caller writes at once). Returns the lock word held and fills
     * {@code scope}; returns 0 if the value was removed, or -1 if it moved (scope.ptr then names
     * the new slice: lock again). A holder that claimed without L calls {@link #beginWrite}
     * before it changes a byte of the value.
     */
    long lock(WriteScope scope, boolean write) {
        long ptr = scope.ptr;
        int slot = nova.protectOwned(ptr);
        if (slot < 0) {
            long next = resolve(ptr);
            if (next == 0 || next == LOST) return 0; // LOST: the caller looks the key up again
            scope.ptr = next;
            return -1;
        }
        long at = nova.dataOffset(ptr);
        long held = write ? HOLDER_BITS : CLAIMED;
        for (int spins = 0; ; spins++) {
            long lw = region.getLongVolatile(at);
            if ((lw & (REMOVED | MOVED)) != 0) {
                nova.unprotect(slot);
                if ((lw & REMOVED) != 0) return 0;
                scope.ptr = region.getLongPlain(at + 8); // published by the M store we acquired
                return -1;
            }
            if (spins == SELF_CHECK_SPINS && markedByCurrentThread(at)) { // the hazard slot keeps the incarnation
                nova.unprotect(slot);
                throw waitsForItself();
            }
            if ((lw & HOLDER_BITS) == 0 && region.compareAndSetLong(at, lw, lw | held)) {
                // StoreStore: the writer's plain stores to the value must not become visible before
                // L, or a reader could load new bytes, then an unlocked, unchanged lock word, and
                // accept a torn value (the CAS orders only earlier accesses on ARM; StampedLock's
                // write lock fences the same way). A compiler barrier only on x86. Needed only when
                // this CAS sets L; a claim's later beginWrite fences after its own store of L.
                VarHandle.storeStoreFence();
                region.setLongPlain(at + 8, holderMark()); // cleared before the release (class comment)
                scope.slot = slot;
                scope.lockWord = lw | held;
                scope.held = true;
                return lw | held;
            }
            Backoff.step(spins);
        }
    }

    /**
     * Turns the claim {@code scope} holds into a write lock (sets L; nothing if it is set): called
     * before the holder's first store to the value's bytes, in place or by a move. Readers that
     * loaded the claimed word fail their re-check from here on, and new readers wait.
     *
     * <p>Ordering: the holder alone stores the lock word while it holds C, so a release store
     * suffices for the word itself (every lock-word store is a release store or a CAS, see "the
     * lock word first" above). The StoreStore fence after it keeps the value stores that follow
     * from becoming visible before L: a reader that loads any of them, then (after its load
     * fence) the lock word, sees L or a later word and retries, exactly as after the lock CAS.
     */
    void beginWrite(WriteScope scope) {
        long lw = scope.lockWord;
        if ((lw & LOCKED) != 0) return;
        region.setLongRelease(nova.dataOffset(scope.ptr), lw | LOCKED);
        VarHandle.storeStoreFence();
        scope.lockWord = lw | LOCKED;
    }

    /** Unlocks after a write that left {@code length} value bytes (release: the writes first). */
    void unlock(WriteScope scope, int length) {
        scope.held = false;
        long at = nova.dataOffset(scope.ptr);
        region.setLongPlain(at + 8, 0); // the holder mark, before the release
        region.setLongRelease(at, withLength(nextSeq(scope.lockWord) & ~HOLDER_BITS, length));
        nova.unprotect(scope.slot);
    }

    /** Marks the locked value removed (the remove's linearization point), retires its slice. */
    void removeLocked(WriteScope scope, boolean reclaim) {
        scope.held = false;
        long at = nova.dataOffset(scope.ptr);
        region.setLongPlain(at + 8, 0); // the holder mark, before the release
        region.setLongRelease(at, nextSeq(scope.lockWord) & ~HOLDER_BITS | REMOVED);
        if (reclaim) nova.delete(scope.ptr);
        nova.unprotect(scope.slot);
    }

    /**
     * Ends a move: the map's entry already names {@code target}; leaves the forward pointer and
     * M in the old slice (one release store publishes both; the pointer replaces the holder
     * mark), retires it and drops the lock.
     */
    void movedLocked(WriteScope scope, long target, boolean reclaim) {
        scope.held = false;
        long at = nova.dataOffset(scope.ptr);
        region.setLongPlain(at + 8, target);
        region.setLongRelease(at, nextSeq(scope.lockWord) & ~HOLDER_BITS | MOVED);
        if (reclaim) nova.delete(scope.ptr);
        nova.unprotect(scope.slot);
    }

    /**
     * The word with seq + 1; seq wraps within its 27 bits (readers only ask "changed since?": a
     * reader is fooled only if 2^27 writes of one value complete during one of its reads).
     */
    static long nextSeq(long lw) {
        return (lw & ~SEQ_MASK) | ((lw + SEQ_ONE) & SEQ_MASK);
    }
}
