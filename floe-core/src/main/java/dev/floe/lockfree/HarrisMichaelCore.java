package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.Region;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Harris–Michael lock-free ordered list (Michael, "High Performance Dynamic Lock-Free Hash
 * Tables and List-Based Sets", SPAA 2002) over off-heap nodes, with a pluggable
 * {@link Reclamation}. One instance runs the algorithm on any number of <em>head words</em>: the
 * single head of a {@link HarrisMichaelList}, or the buckets of a {@link MichaelHashTable}.
 *
 * <h2>Node layout (one allocator block of {@value #NODE_BYTES} bytes)</h2>
 * <pre>
 *  offset 0   next   successor's offset | MARK (bit 0: this node is logically deleted); 0 = end
 *  offset 8   key    signed long, list sorted ascending
 *  offset 16  stamp  incarnation stamp: random, non-zero, written once before publication
 *  offset 24  value  written once before publication
 * </pre>
 * Offsets are 8-byte aligned, so bit 0 of a next word is free for the mark. The next word is
 * CASed in place (8-byte aligned off-heap word, {@code JAVA_LONG} var handle); key, stamp and
 * value are plain stores published by the CAS that links the node (a full fence).
 *
 * <h2>Algorithm</h2>
 * <ul>
 *   <li>{@code find}: walk from the head keeping (prev word, cur, next); after each node's loads
 *       re-read the prev word and check the reclamation's warning; restart from the head if
 *       either changed. A marked cur is unlinked by CASing prev's word from cur to next (with
 *       hazard pointers on prev, cur and next) and the winner retires it.</li>
 *   <li>{@code insert}: find; if absent, CAS prev's word from cur to the new node.</li>
 *   <li>{@code remove}: find; CAS cur's next from next to next|MARK (the linearization point);
 *       then try to unlink, else let a {@code find} unlink it.</li>
 *   <li>{@code get}/{@code contains}: a read-only walk that passes marked nodes (it writes nothing,
 *       invariant 4) and validates each step against the warning.</li>
 * </ul>
 * A node is retired only by the thread whose CAS unlinked it, so exactly once, and only after
 * it became unreachable from every head.
 *
 * <h2>Incarnation check</h2>
 * Every CAS that acts on a node (mark, link after prev, unlink) happens under protection; right
 * after a successful one, the node's key and stamp are re-read and compared with those read
 * during the validated traversal (the predecessor's are loaded where the traversal stops and
 * validated by the warning check of the {@code protect} before the CAS). A difference means the
 * CAS acted on another incarnation of the block (a reclamation bug); it is counted in
 * {@link #incarnationMismatches()}, which tests require to stay 0.
 */
final class HarrisMichaelCore {
    static final long NEXT = 0;
    static final long KEY = 8;
    static final long STAMP = 16;
    static final long VALUE = 24;
    static final int NODE_BYTES = 32;
    static final long MARK = 1L;

    private final Reclamation rec;
    private final FloeAllocator alloc;
    private final Region region;
    private final LongAdder mismatches = new LongAdder();

    HarrisMichaelCore(Reclamation rec) {
        this.rec = java.util.Objects.requireNonNull(rec, "reclamation");
        this.alloc = rec.allocator();
        this.region = alloc.region();
    }

    Reclamation reclamation() {
        return rec;
    }

    long incarnationMismatches() {
        return mismatches.sum();
    }

    /** Where {@code find} stopped: cur is the first unmarked node with key >= the searched key. */
    private static final class Window {
        long prevWord;
        long prevNode;
        long prevKey;
        long prevStamp;
        long cur;
        long curStamp;
        long next;
        boolean found;
    }

    boolean insert(long head, long key, long value) {
        Participant p = rec.enter();
        long node = 0;
        try {
            Window w = new Window();
            while (true) {
                find(p, head, key, w);
                if (w.found) {
                    if (node != 0) alloc.free(node); // never published: no one else saw it
                    return false;
                }
                if (node == 0) {
                    node = alloc.allocate(NODE_BYTES);
                    region.setLongPlain(node + KEY, key);
                    region.setLongPlain(node + STAMP, ThreadLocalRandom.current().nextLong() | 1L);
                    region.setLongPlain(node + VALUE, value);
                }
                region.setLongPlain(node + NEXT, w.cur);
                if (!rec.protect(p, w.prevNode, w.cur, 0)) {
                    rec.acknowledge(p);
                    continue;
                }
                // CAS (full fence): publishes the node's plain stores with the link
                boolean linked = region.compareAndSetLong(w.prevWord, w.cur, node);
                if (linked && w.prevNode != 0) checkIncarnation(w.prevNode, w.prevKey, w.prevStamp);
                rec.unprotect(p);
                if (linked) return true;
            }
        } finally {
            rec.exit(p);
        }
    }

    boolean remove(long head, long key) {
        Participant p = rec.enter();
        try {
            Window w = new Window();
            while (true) {
                find(p, head, key, w);
                if (!w.found) return false;
                if (!rec.protect(p, w.prevNode, w.cur, w.next)) {
                    rec.acknowledge(p);
                    continue;
                }
                if (!region.compareAndSetLong(w.cur + NEXT, w.next, w.next | MARK)) {
                    rec.unprotect(p); // cur was marked, or got a new successor: look again
                    continue;
                }
                checkIncarnation(w.cur, key, w.curStamp);
                boolean unlinked = region.compareAndSetLong(w.prevWord, w.cur, w.next);
                rec.unprotect(p);
                if (unlinked) {
                    rec.retire(p, w.cur);
                } else {
                    find(p, head, key, w); // unlinks (and retires) every marked node up to key
                }
                return true;
            }
        } finally {
            rec.exit(p);
        }
    }

    /** The value under {@code key}, or {@code absent}. Read-only walk. */
    long get(long head, long key, long absent) {
        long t = rec.enterRead();
        try {
            retry:
            while (true) {
                long cur = region.getLongAcquire(head); // head words are never freed
                while (cur != 0) {
                    // the acquires (head, then each next word) pair with the link CAS that published
                    // cur, so its plain key and value are the initialised ones; readWarned validates them
                    long nextRaw = region.getLongAcquire(cur + NEXT);
                    long ckey = region.getLongPlain(cur + KEY);
                    long value = region.getLongPlain(cur + VALUE);
                    if (rec.readWarned(t)) { // LoadLoad inside: the three loads are validated
                        t = rec.readRestart(t);
                        continue retry;
                    }
                    if (ckey >= key) return ckey == key && (nextRaw & MARK) == 0 ? value : absent;
                    cur = nextRaw & ~MARK;
                }
                return absent;
            }
        } finally {
            rec.exitRead(t);
        }
    }

    boolean contains(long head, long key) {
        long t = rec.enterRead();
        try {
            retry:
            while (true) {
                long cur = region.getLongAcquire(head);
                while (cur != 0) {
                    long nextRaw = region.getLongAcquire(cur + NEXT);
                    long ckey = region.getLongPlain(cur + KEY);
                    if (rec.readWarned(t)) {
                        t = rec.readRestart(t);
                        continue retry;
                    }
                    if (ckey >= key) return ckey == key && (nextRaw & MARK) == 0;
                    cur = nextRaw & ~MARK;
                }
                return false;
            }
        } finally {
            rec.exitRead(t);
        }
    }

    /** Unmarked nodes reachable from {@code head} (weakly consistent under concurrent updates). */
    long count(long head) {
        long t = rec.enterRead();
        try {
            retry:
            while (true) {
                long n = 0;
                long cur = region.getLongAcquire(head);
                while (cur != 0) {
                    long nextRaw = region.getLongAcquire(cur + NEXT);
                    if (rec.readWarned(t)) {
                        t = rec.readRestart(t);
                        continue retry;
                    }
                    if ((nextRaw & MARK) == 0) n++;
                    cur = nextRaw & ~MARK;
                }
                return n;
            }
        } finally {
            rec.exitRead(t);
        }
    }

    /**
     * Frees every node reachable from {@code head} and empties it. Only when no other thread uses
     * the structure (close).
     */
    void freeAll(long head) {
        long cur = region.getLongAcquire(head);
        region.setLongVolatile(head, 0);
        while (cur != 0) {
            long next = region.getLongPlain(cur + NEXT) & ~MARK;
            alloc.free(cur);
            cur = next;
        }
    }

    /**
     * Michael's search: fills {@code w} with the first unmarked node whose key is {@code >= key}
     * and its predecessor, unlinking (and retiring) the marked nodes met on the way.
     *
     * <p>The walk carries only what it needs to go on: the predecessor's word and the current
     * node. The predecessor's node offset is that word's offset (the next word is at offset 0)
     * unless the word is the head; its key and stamp, which only {@code insert}'s incarnation
     * check uses, are loaded once in {@link #setWindow}. Carrying them through the loop kept three
     * more values live per step, more than C2 had general registers for: the compiled loop (with
     * OA-VER) took 119 instructions per node, 10 of them moves to and from vector registers used
     * as spill space, against 69 and 1 now, and {@code list-5k-update} with one thread takes
     * about 22% less CPU per operation (docs/lockfree.md, "Where the time went").
     */
    private void find(Participant p, long head, long key, Window w) {
        retry:
        while (true) {
            long seen = rec.watchToken(p);
            long prevWord = head;
            long cur = region.getLongAcquire(prevWord);
            while (true) {
                if (cur == 0) {
                    setWindow(w, head, prevWord, 0, 0, 0, false);
                    return;
                }
                long nextRaw = region.getLongAcquire(cur + NEXT);
                long ckey = region.getLongPlain(cur + KEY);
                long cstamp = region.getLongPlain(cur + STAMP);
                long again = region.getLongAcquire(prevWord);
                if (rec.warned(p, seen)) { // LoadLoad inside: the four loads above are validated
                    rec.acknowledge(p);
                    continue retry;
                }
                if (again != cur) continue retry; // prev marked or cur unlinked (Michael)
                long next = nextRaw & ~MARK;
                if ((nextRaw & MARK) != 0) {
                    if (!rec.protect(p, nodeOf(head, prevWord), cur, next)) {
                        rec.acknowledge(p);
                        continue retry;
                    }
                    boolean unlinked = region.compareAndSetLong(prevWord, cur, next);
                    if (unlinked) checkIncarnation(cur, ckey, cstamp);
                    rec.unprotect(p);
                    if (!unlinked) continue retry;
                    rec.retire(p, cur);
                    cur = next;
                } else {
                    if (ckey >= key) {
                        setWindow(w, head, prevWord, cur, cstamp, next, ckey == key);
                        return;
                    }
                    prevWord = cur + NEXT;
                    cur = next;
                }
            }
        }
    }

    /** The node whose next word is {@code prevWord}, or 0 if {@code prevWord} is the head word. */
    private static long nodeOf(long head, long prevWord) {
        return prevWord == head ? 0 : prevWord - NEXT;
    }

    /**
     * Fills {@code w} with where {@code find} stopped. The predecessor's key and stamp are loaded
     * here, after the walk validated that node and before the caller's {@code protect}: protect's
     * warning check follows these loads (after its full fence), so they are validated exactly as
     * the walk's own loads are — if it passes, the predecessor had not been freed when they ran,
     * and they read the incarnation the walk saw. A restart after a failed protect calls
     * {@code find} again and overwrites them.
     */
    private void setWindow(Window w, long head, long prevWord, long cur, long curStamp, long next, boolean found) {
        long prevNode = nodeOf(head, prevWord);
        w.prevWord = prevWord;
        w.prevNode = prevNode;
        w.prevKey = prevNode == 0 ? 0 : region.getLongPlain(prevNode + KEY);
        w.prevStamp = prevNode == 0 ? 0 : region.getLongPlain(prevNode + STAMP);
        w.cur = cur;
        w.curStamp = curStamp;
        w.next = next;
        w.found = found;
    }

    /** Called right after a successful CAS on {@code node} while it is protected. */
    private void checkIncarnation(long node, long key, long stamp) {
        if (region.getLongPlain(node + KEY) != key || region.getLongPlain(node + STAMP) != stamp) {
            mismatches.increment();
        }
    }
}
