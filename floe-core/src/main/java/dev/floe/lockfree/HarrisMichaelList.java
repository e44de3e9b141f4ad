package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

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
public final class HarrisMichaelList implements LockFreeLongMap {
    private final HarrisMichaelCore core;
    private final FloeAllocator alloc;
    private final long head;
    private volatile boolean closed;

    public HarrisMichaelList(Reclamation reclamation) {
        this.core = new HarrisMichaelCore(reclamation);
        this.alloc = reclamation.allocator();
        this.head = alloc.allocate(Long.BYTES);
        alloc.region().setLongVolatile(head, 0L); // allocated memory is not cleared
    }

    @Override
    public boolean insert(long key, long value) {
        checkOpen();
        return core.insert(head, key, value);
    }

    @Override
    public boolean remove(long key) {
        checkOpen();
        return core.remove(head, key);
    }

    @Override
    public boolean contains(long key) {
        checkOpen();
        return core.contains(head, key);
    }

    @Override
    public long get(long key, long absent) {
        checkOpen();
        return core.get(head, key, absent);
    }

    @Override
    public long size() {
        checkOpen();
        return core.count(head);
    }

    @Override
    public Reclamation reclamation() {
        return core.reclamation();
    }

    @Override
    public long incarnationMismatches() {
        return core.incarnationMismatches();
    }

    @Override
    public synchronized void close() {
        checkOpen();
        closed = true;
        core.freeAll(head);
        alloc.free(head);
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the list is closed");
    }
}
