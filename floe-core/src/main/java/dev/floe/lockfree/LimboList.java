package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.util.Arrays;

/**
 * A participant's limbo list (the paper's LimboList): nodes retired through it and not yet freed,
 * each with the clock value read just after it was unlinked (used by EBR; OA ignores it). Owned by
 * the participant's current holder, so it needs no synchronisation. It starts at its capacity
 * and grows only when the scheme cannot free (EBR behind a stalled operation, or OA keeping nodes
 * a hazard pointer holds).
 */
final class LimboList {
    private final int capacity;
    private long[] nodes;
    private long[] stamps;
    private int size;
    /** Size at which a reclamation pass is due: capacity past what the last pass had to keep. */
    private int due;

    LimboList(int capacity) {
        this.capacity = capacity;
        this.nodes = new long[capacity];
        this.stamps = new long[capacity];
        this.due = capacity;
    }

    void add(long node, long stamp) {
        if (size == nodes.length) {
            nodes = Arrays.copyOf(nodes, size * 2);
            stamps = Arrays.copyOf(stamps, size * 2);
        }
        nodes[size] = node;
        stamps[size] = stamp;
        size++;
    }

    int size() {
        return size;
    }

    /**
     * Whether a reclamation pass is due: {@code capacity} nodes were retired since the last pass
     * (nodes it had to keep do not count, so a list that cannot be freed — EBR behind a stalled
     * operation — is not rescanned on every operation).
     */
    boolean isFull() {
        return size >= due;
    }

    /** Nodes retired since the last pass. */
    int sinceLastPass() {
        return size - (due - capacity);
    }

    int capacity() {
        return capacity;
    }

    /** Decides, for one retired node and its stamp, whether it may be freed now. */
    interface Verdict {
        boolean mayFree(long node, long stamp);
    }

    /**
     * Frees every node the verdict allows, in one {@link FloeAllocator#free(long[], int, int)}
     * call (one cache-stripe claim for the batch), keeps the others (compacted, in order), and
     * returns how many were freed.
     */
    int drain(Verdict verdict, FloeAllocator allocator) {
        int kept = 0;
        int n = size;
        for (int i = 0; i < n; i++) {
            long node = nodes[i];
            if (verdict.mayFree(node, stamps[i])) continue;
            // Stable partition: [0, kept) are kept nodes in order, [kept, i) freeable ones, so the
            // swap moves a freeable node to i and the kept one to the end of the kept prefix.
            nodes[i] = nodes[kept];
            nodes[kept] = node;
            stamps[kept] = stamps[i];
            kept++;
        }
        allocator.free(nodes, kept, n);
        size = kept;
        due = kept + capacity;
        return n - kept;
    }
}
