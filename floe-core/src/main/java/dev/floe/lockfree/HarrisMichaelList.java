package dev.floe.lockfree;

/**
 * Harris–Michael lock-free ordered linked list of {@code long} keys (ascending) with off-heap
 * nodes; the algorithm and the node layout are in {@link HarrisMichaelCore}. The head is one
 * off-heap word allocated from the same allocator, never freed before {@link #close}.
 *
 * <pre>{@code
 * try (FloeAllocator alloc = FloeAllocator.create();
 *      HarrisMichaelList list = new HarrisMichaelList(Reclamation.oaVer(alloc))) {
 *     list.insert(42, 7);
 *     long v = list.get(42, -1);   // 7
 *     list.remove(42);
 * }
 * }</pre>
 */
public final class HarrisMichaelList extends ListHeads {
    /**
     * An empty list whose nodes come from {@code reclamation}'s allocator and are reclaimed by it.
     *
     * @throws dev.floe.memory.FloeOutOfMemoryException if the head word exceeds the allocator's budget
     * @throws IllegalStateException if the allocator is closed
     */
    public HarrisMichaelList(Reclamation reclamation) {
        super(reclamation, 1, "list");
    }

    @Override
    long headOf(long key) {
        return heads; // one list: every key has the same head
    }
}
