package dev.floe.memory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shared heap of superblocks behind the caches (LRMalloc's heap): moves free blocks from
 * superblocks into caches ({@link #fill}) and back ({@link #flush}), carves new superblocks, and
 * releases empty ones to the OS.
 *
 * <h2>Superblock states and who moves them</h2>
 * <pre>
 *             flush (some free)              fill (takes the last free blocks)
 *     FULL  ---------------------&gt;  PARTIAL  ----------------------------------&gt; FULL
 *       |                            |    ^ fill/flush (count changes)
 *       | flush (all free)           | flush (all free)
 *       v                            v
 *   RELEASING ---(madvise done)---&gt; EMPTY ---(reused by a fill of the same class)---&gt; PARTIAL/FULL
 * </pre>
 * A superblock is <em>listed</em> while it is on its class's partial stack or held by a filler
 * that popped it. Invariant: <b>PARTIAL implies listed, FULL implies unlisted</b> — only the
 * flush that moves FULL→PARTIAL pushes, and only a popper moves PARTIAL→FULL. So a descriptor is
 * never pushed twice. An emptied superblock must reach the class's reuse stack exactly once, and
 * only after its {@code madvise} finished (else a reuser's data could be zeroed):
 * <ul>
 *   <li>FULL→RELEASING (unlisted): the flusher madvises, sets EMPTY and pushes it for reuse.</li>
 *   <li>PARTIAL→RELEASING (listed): the flusher madvises, then CASes RELEASING→EMPTY. A popper
 *       that meets RELEASING sets the POPPED flag instead of using it; the flusher's CAS then
 *       fails, and the flusher (now the last holder) pushes it for reuse. A popper that meets
 *       EMPTY pushes it for reuse itself.</li>
 * </ul>
 * Fills prefer a partial superblock, then a released one of the same class (address range reused
 * first for the same class), then — only with re-carving enabled — a released one of another
 * class, and only then carve a new one from the frontier, charging the budget. All steps are CAS-based and lock-free; no step waits for another thread.
 */
final class SuperblockHeap {
    final Region region;
    final SuperblockDirectory directory;
    final long superblockSize;
    final int superblockShift;
    /** First offset past the small area; large runs live in {@code [smallLimit, region size)}. */
    final long smallLimit;
    private final int maxIndex;
    private final AtomicInteger frontier = new AtomicInteger(1); // index 0 is never used: offset 0 is "null"
    /** This allocator's size classes (the standard ones and its exact ones). */
    final SizeClassTable classes;
    private final DescriptorStack[] partial;
    private final DescriptorStack[] reusable;
    private final Budget budget;
    private final AtomicLong releases = new AtomicLong();
    /**
     * Released superblocks per class, for {@link #heldByOtherClasses}: counted by the release
     * before the superblock turns EMPTY, uncounted by the fill that reuses or re-carves it after
     * taking it EMPTY. The reuser's CAS (or pop) reads the EMPTY anchor the releaser wrote after
     * its increment, so the decrement follows the increment and the count is never negative (one
     * too high while a release finishes). Both are superblock-level steps (a system call, a
     * reuse), never a cache hit.
     */
    private final AtomicIntegerArray released;

    /**
     * Whether an EMPTY superblock of another class may be re-carved when a class has no partial or
     * released superblock of its own. Off by default: it breaks invariant 3 (stable header
     * positions), so only layers that can recognise a foreign header (Nova's magic-number mode)
     * may enable it.
     */
    private final boolean recarve;

    SuperblockHeap(Region region, long superblockSize, long smallLimit, Budget budget, boolean recarve, SizeClassTable classes) {
        this.recarve = recarve;
        this.classes = classes;
        this.partial = new DescriptorStack[classes.count()];
        this.reusable = new DescriptorStack[classes.count()];
        this.released = new AtomicIntegerArray(classes.count());
        this.region = region;
        this.superblockSize = superblockSize;
        this.superblockShift = Long.numberOfTrailingZeros(superblockSize);
        this.smallLimit = smallLimit;
        this.maxIndex = (int) (smallLimit >>> superblockShift);
        this.directory = new SuperblockDirectory(maxIndex);
        this.budget = budget;
        for (int c = 0; c < classes.count(); c++) {
            partial[c] = new DescriptorStack(directory);
            reusable[c] = new DescriptorStack(directory);
        }
    }

    /** The descriptor of the superblock containing {@code off}, or null if none was carved. */
    Superblock superblockOf(long off) {
        if (off <= 0 || off >= smallLimit) return null;
        return directory.get((int) (off >>> superblockShift));
    }

    /**
     * Moves between 1 and {@code room} free blocks of class {@code c} into {@code dst[at..)} and
     * returns how many. Throws {@link FloeOutOfMemoryException} (changing nothing) when a new
     * superblock is needed and the budget or the address space is exhausted.
     */
    int fill(int c, long[] dst, int at, int room) {
        Superblock sb;
        while ((sb = partial[c].pop()) != null) {
            int n = takeFromPopped(sb, dst, at, room);
            if (n > 0) return n;
        }
        if ((sb = reusable[c].pop()) != null) {
            try {
                budget.charge(superblockSize, classes.blockSize(c));
            } catch (FloeOutOfMemoryException e) {
                reusable[c].push(sb);
                throw e;
            }
            region.reuseEmptySuperblock(sb.offset, superblockSize); // shared frame: private pages again
            // EMPTY and unlisted: nobody else can change its anchor (a stale free is refused by
            // its live byte), so this CAS cannot fail; all its blocks are in the free pool.
            int n = Math.min(room, sb.blockCount);
            int rest = sb.blockCount - n;
            boolean ok = sb.casAnchor(Anchor.of(Anchor.EMPTY, sb.blockCount),
                    Anchor.of(rest > 0 ? Anchor.PARTIAL : Anchor.FULL, rest));
            if (!ok) throw new IllegalStateException("Floe allocator invariant broken: reused superblock changed");
            released.decrementAndGet(c);
            sb.takeFree(dst, at, n);
            if (rest > 0) partial[c].push(sb);
            return n;
        }
        if (recarve) {
            for (int k = 0; k < classes.count(); k++) {
                if (k != c && (sb = reusable[k].pop()) != null) return recarve(sb, c, dst, at, room);
            }
            for (int k = 0; k < classes.count(); k++) {
                if (k != c && sweep(k) && (sb = reusable[k].pop()) != null) return recarve(sb, c, dst, at, room);
            }
        }
        return carve(c, dst, at, room);
    }

    /**
     * Empties class {@code k}'s partial stack and settles each descriptor as a popper must (see
     * the class comment): EMPTY ones go to the reuse stack, RELEASING ones are marked POPPED (their
     * flusher pushes them for reuse), PARTIAL ones are pushed back. Emptied superblocks otherwise
     * wait on their partial stack until their own class allocates again; re-carving needs them
     * sooner. Runs only where a fresh superblock would be carved anyway, so its O(superblocks of
     * k) cost is paid at most once per carve. Returns whether anything went to the reuse stack.
     */
    private boolean sweep(int k) {
        ArrayList<Superblock> partialOnes = new ArrayList<>();
        boolean found = false;
        Superblock sb;
        while ((sb = partial[k].pop()) != null) {
            boolean settled = false;
            while (!settled) {
                long a = sb.anchor();
                switch (Anchor.state(a)) {
                    case Anchor.EMPTY -> { reusable[k].push(sb); found = true; settled = true; }
                    case Anchor.RELEASING -> settled = sb.casAnchor(a, a | Anchor.POPPED);
                    case Anchor.PARTIAL -> { partialOnes.add(sb); settled = true; }
                    default -> throw new IllegalStateException(
                            "Floe allocator invariant broken: FULL superblock on the partial stack");
                }
            }
        }
        for (Superblock p : partialOnes) partial[k].push(p);
        return found;
    }

    /**
     * Gives an EMPTY, unlisted superblock of another class to class {@code c}: a new descriptor
     * with the new geometry replaces the old one in the directory (release store). The old one
     * had every block in its free pool, so no cache, stack or live block refers to it; a stale
     * free of an old offset meets the new descriptor's live bytes and is refused.
     */
    private int recarve(Superblock old, int c, long[] dst, int at, int room) {
        try {
            budget.charge(superblockSize, classes.blockSize(c));
        } catch (FloeOutOfMemoryException e) {
            reusable[old.sizeClass].push(old);
            throw e;
        }
        region.reuseEmptySuperblock(old.offset, superblockSize);
        released.decrementAndGet(old.sizeClass);
        return install(new Superblock(old.index, old.offset, c, classes.blockSize(c), superblockSize), dst, at, room);
    }

    /** A popped superblock: take blocks if PARTIAL, else settle its release (see class comment). */
    private int takeFromPopped(Superblock sb, long[] dst, int at, int room) {
        while (true) {
            long a = sb.anchor();
            switch (Anchor.state(a)) {
                case Anchor.PARTIAL -> {
                    int count = Anchor.count(a);
                    int n = Math.min(count, room);
                    int rest = count - n;
                    if (sb.casAnchor(a, Anchor.of(rest > 0 ? Anchor.PARTIAL : Anchor.FULL, rest))) {
                        sb.takeFree(dst, at, n);
                        if (rest > 0) partial[sb.sizeClass].push(sb); // still PARTIAL: stays listed
                        return n;
                    }
                }
                case Anchor.RELEASING -> {
                    if (sb.casAnchor(a, a | Anchor.POPPED)) return 0; // the flusher finishes it
                }
                case Anchor.EMPTY -> {
                    reusable[sb.sizeClass].push(sb);
                    return 0;
                }
                default -> throw new IllegalStateException(
                        "Floe allocator invariant broken: FULL superblock on the partial stack");
            }
        }
    }

    private int carve(int c, long[] dst, int at, int room) {
        budget.charge(superblockSize, classes.blockSize(c));
        int index = frontier.getAndIncrement();
        if (index >= maxIndex) {
            frontier.getAndDecrement(); // keep the frontier bounded (harmless race: both fail)
            budget.refund(superblockSize);
            throw budget.exhausted("superblocks", heldByOtherClasses(c), classes.blockSize(c), 0);
        }
        long off = (long) index << superblockShift;
        try {
            region.commit(off, superblockSize);
        } catch (RuntimeException e) {
            budget.refund(superblockSize);
            throw e;
        }
        return install(new Superblock(index, off, c, classes.blockSize(c), superblockSize), dst, at, room);
    }

    /**
     * Why a small area whose superblocks are all carved refuses class {@code c} while little is
     * committed: without re-carving, a released superblock serves only the class it was carved
     * for (invariant 3), so the address space of a class that is no longer used is not free for
     * another. Counts those superblocks ({@link #released}: a failing call in a loop stays cheap,
     * where a pass over the directory took 7 ms in a full 256 GiB region) for the exception's
     * message; empty when there are none, or when re-carving would have taken them.
     */
    private String heldByOtherClasses(int c) {
        if (recarve) return "";
        int held = 0;
        for (int k = 0; k < classes.count(); k++) if (k != c) held += released.get(k);
        return held == 0 ? "" : " (" + held + " of its " + (maxIndex - 1) + " superblocks are released but keep the"
                + " size classes they were carved for: a larger regionSize, or recarveEmptySuperblocks, makes room)";
    }

    /** Hands the first blocks of a fresh descriptor to the caller and publishes it. */
    private int install(Superblock sb, long[] dst, int at, int room) {
        int c = sb.sizeClass;
        int n = Math.min(room, sb.blockCount);
        int rest = sb.blockCount - n;
        sb.initFree(n);
        sb.setAnchor(Anchor.of(rest > 0 ? Anchor.PARTIAL : Anchor.FULL, rest));
        for (int i = 0; i < n; i++) dst[at + i] = sb.blockOffset(i);
        directory.install(sb);
        if (rest > 0) partial[c].push(sb);
        return n;
    }

    /**
     * Returns {@code src[from..to)} (blocks of one class, live bytes already cleared) to their
     * superblocks. Sorts the range so each superblock's blocks form one run: one bitmap OR per
     * word and one anchor CAS per run.
     */
    void flush(long[] src, int from, int to) {
        Arrays.sort(src, from, to);
        int runStart = from;
        while (runStart < to) {
            long sbIndex = src[runStart] >>> superblockShift;
            int runEnd = runStart + 1;
            while (runEnd < to && (src[runEnd] >>> superblockShift) == sbIndex) runEnd++;
            Superblock sb = directory.get((int) sbIndex);
            sb.addFree(src, runStart, runEnd);
            returnRun(sb, runEnd - runStart);
            runStart = runEnd;
        }
    }

    private void returnRun(Superblock sb, int n) {
        long a;
        long b;
        int oldState;
        do {
            a = sb.anchor();
            oldState = Anchor.state(a);
            int count = Anchor.count(a) + n;
            // we hold n of its blocks, so it is FULL or PARTIAL, never RELEASING or EMPTY
            if (oldState > Anchor.PARTIAL || count > sb.blockCount) {
                throw new IllegalStateException("Floe allocator invariant broken: returning " + n
                        + " blocks to superblock " + sb.index + " in state " + oldState);
            }
            b = Anchor.of(count == sb.blockCount ? Anchor.RELEASING : Anchor.PARTIAL, count);
        } while (!sb.casAnchor(a, b));
        if (Anchor.state(b) == Anchor.PARTIAL) {
            if (oldState == Anchor.FULL) partial[sb.sizeClass].push(sb);
            return;
        }
        release(sb);
        if (oldState == Anchor.FULL) {
            sb.setAnchor(Anchor.of(Anchor.EMPTY, sb.blockCount));
            reusable[sb.sizeClass].push(sb);
        } else if (!sb.casAnchor(b, Anchor.of(Anchor.EMPTY, sb.blockCount))) {
            // a popper marked it POPPED meanwhile: we are the last holder
            sb.setAnchor(Anchor.of(Anchor.EMPTY, sb.blockCount));
            reusable[sb.sizeClass].push(sb);
        }
    }

    private void release(Superblock sb) {
        region.releaseEmptySuperblock(sb.offset, superblockSize);
        budget.refund(superblockSize);
        releases.incrementAndGet();
        released.incrementAndGet(sb.sizeClass);
        if (JfrEvents.recorderInitialized()) recordRelease(sb);
    }

    /** JFR {@code floe.SuperblockRelease} (only once the recorder is initialized: {@link JfrEvents}). */
    private void recordRelease(Superblock sb) {
        SuperblockReleaseEvent e = new SuperblockReleaseEvent();
        if (e.shouldCommit()) {
            e.offset = sb.offset;
            e.sizeClass = sb.sizeClass;
            e.blockSize = sb.blockSize;
            e.bytes = superblockSize;
            e.commit();
        }
    }

    long releases() {
        return releases.get();
    }

    /** Number of superblock indices carved so far (the directory's used prefix). */
    int carved() {
        return Math.min(frontier.get(), maxIndex);
    }
}
