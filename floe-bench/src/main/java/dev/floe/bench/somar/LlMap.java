package dev.floe.bench.somar;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The LL-map: Harris's lock-free ordered linked list [Harris 2001] with on-heap nodes; where the
 * keys and values live is up to the subclass.
 *
 * <p>Logical deletion marks a node by swinging its {@code next} from the successor {@code s} to a
 * fresh {@link Marker} whose {@code next} is {@code s} (the encoding of Harris's mark bit that
 * {@code ConcurrentSkipListMap} uses: Java cannot tag references). A marked node's {@code next}
 * never changes again, and a CAS on a marked predecessor's {@code next} fails because that field
 * holds the marker, so the usual Harris invariants hold.
 *
 * <ul>
 *   <li><b>search</b> walks from the head, unlinking marked nodes on the way, and compares every
 *       visited node's key with the probe ({@link #compareKey}: for SOMAR variants one read
 *       through the key's safe pointer, the paper's "SOMAR approach").</li>
 *   <li><b>put</b>: if the key is present, overwrite the value in place ({@link #overwrite});
 *       otherwise allocate and privately write key and value ({@link #newNode}) and CAS the node
 *       in; on a lost race, delete both privately ({@link #discard}) and start over.</li>
 *   <li><b>delete</b>: mark, unlink, then delete key and value ({@link #retire}); the thread whose
 *       mark CAS succeeds owns the deletion.</li>
 *   <li><b>get</b>: search, then read the value ({@link #readValue}).</li>
 * </ul>
 * Keys and values are deleted only after the node is marked, so a key that cannot be read (the
 * SOMAR read fails) belongs to a marked node: the search re-reads that node's {@code next}, sees
 * the marker and unlinks it. A failed value access (overwrite or read) is a delete that won the
 * race: put starts over, get reports the key absent.
 */
abstract class LlMap implements BenchMap {

    /** A list node; subclasses add the key and value references. */
    static class Node {
        volatile Node next;
    }

    /** The mark of a logically deleted node: installed as its {@code next}, pointing on. */
    static final class Marker extends Node {
        Marker(Node successor) {
            NEXT.set(this, successor);
        }
    }

    /** {@link #compareKey} could not read the key: it was deleted. */
    static final int FAILED = Integer.MIN_VALUE;
    /** Failed key reads of one unmarked node before we call it a bug instead of a race. */
    private static final int MAX_FAILED_READS = 1 << 20;

    static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(Node.class, "next", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Node head = new Node();
    final int keyBytes;
    final int valueBytes;

    LlMap(int keyBytes, int valueBytes) {
        this.keyBytes = keyBytes;
        this.valueBytes = valueBytes;
    }

    /** Sign of (node's key - probe's key), or {@link #FAILED} if the key was deleted. */
    abstract int compareKey(Node n, Probe p);

    /** A new unpublished node holding the probe's key and value (allocated, privately written). */
    abstract Node newNode(Probe p);

    /** Frees a node that was never published (privatized delete). */
    abstract void discard(Node n);

    /** Overwrites the node's value with the probe's value in place; false if it was deleted. */
    abstract boolean overwrite(Node n, Probe p);

    /** Copies the first bytes of the node's value into the probe; false if it was deleted. */
    abstract boolean readValue(Node n, Probe p);

    /** Deletes the node's key and value (after it was unlinked). */
    abstract void retire(Node n);

    /** The node's key id, or -1 if its key was deleted (tests and validation). */
    abstract long keyId(Node n);

    @Override
    public Probe newProbe() {
        return new Probe(keyBytes, valueBytes);
    }

    @Override
    public boolean put(Probe p) {
        p.nextValue();
        while (true) {
            if (find(p)) {
                if (overwrite(p.curr, p)) return false;
                continue; // deleted while we wrote: the key is gone, insert it again
            }
            Node node = newNode(p);
            Node curr = p.curr;
            NEXT.set(node, curr); // plain: the CAS below publishes it
            if (NEXT.compareAndSet(p.pred, curr, node)) return true;
            discard(node);        // lost the race: the slices never became shared
        }
    }

    @Override
    public boolean delete(Probe p) {
        while (true) {
            if (!find(p)) return false;
            Node curr = p.curr;
            Node succ = curr.next;
            if (succ instanceof Marker) continue;                             // someone else's delete
            if (!NEXT.compareAndSet(curr, succ, new Marker(succ))) continue; // changed: look again
            if (!NEXT.compareAndSet(p.pred, curr, succ)) find(p);           // unlink, or let a search do it
            retire(curr);
            return true;
        }
    }

    @Override
    public boolean get(Probe p) {
        return find(p) && readValue(p.curr, p);
    }

    /**
     * Harris's search: sets {@code p.pred} to the last unmarked node with a smaller key (or the
     * head) and {@code p.curr} to its successor, the first node with a key at least the probe's
     * (or null), unlinking marked nodes in between. True if {@code p.curr} holds the key.
     */
    final boolean find(Probe p) {
        retry:
        while (true) {
            Node pred = head;
            Node curr = pred.next;
            int failedReads = 0;
            while (true) {
                if (curr == null) {
                    p.pred = pred;
                    p.curr = null;
                    return false;
                }
                Node succ = curr.next;
                if (succ instanceof Marker m) {
                    Node after = m.next;
                    if (!NEXT.compareAndSet(pred, curr, after)) continue retry;
                    curr = after;
                    continue;
                }
                int c = compareKey(curr, p);
                if (c == FAILED) {
                    // Its key was deleted, so it is marked: re-read its next.
                    if (++failedReads > MAX_FAILED_READS) {
                        throw new IllegalStateException("the key of an unmarked list node cannot be read");
                    }
                    Thread.onSpinWait();
                    continue;
                }
                if (c >= 0) {
                    p.pred = pred;
                    p.curr = curr;
                    return c == 0;
                }
                pred = curr;
                curr = succ;
            }
        }
    }

    /** Unmarked nodes (quiescent list). */
    @Override
    public long size() {
        long n = 0;
        for (Node x = head.next; x != null; x = x.next) {
            if (!(x.next instanceof Marker)) n++;
            else x = x.next; // skip the marker
        }
        return n;
    }

    /** The key ids of the unmarked nodes in list order (quiescent list; tests). */
    List<Long> keyIds() {
        List<Long> ids = new ArrayList<>();
        for (Node x : nodes()) ids.add(keyId(x));
        return ids;
    }

    /** Every unmarked node (quiescent list; for tear-down). */
    final List<Node> nodes() {
        List<Node> out = new ArrayList<>();
        for (Node x = head.next; x != null; x = x.next) {
            if (x.next instanceof Marker) {
                x = x.next;
                continue;
            }
            out.add(x);
        }
        return out;
    }
}
