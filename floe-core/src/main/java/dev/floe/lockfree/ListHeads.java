package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;

import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * What the list and the hash table share: a fixed array of off-heap head words, each the head of
 * one Harris–Michael list run by {@link HarrisMichaelCore}, and a rule that maps a key to its
 * head. The list is the case of one head; Michael's hash table has one head per bucket. The head
 * array is one allocation from the structure's allocator (a large run for big tables), zeroed
 * before the structure is published and freed by {@link #close}, after every node.
 */
abstract sealed class ListHeads implements LockFreeLongMap permits HarrisMichaelList, MichaelHashTable {
    private final HarrisMichaelCore core;
    private final FloeAllocator alloc;
    /** Offset of head word 0; head {@code i} is at {@code heads + i * 8}. */
    final long heads;
    final long headCount;
    private final String name;
    private volatile boolean closed;

    /**
     * @param name what the structure is called in exception messages ("list", "hash table")
     * @throws IllegalArgumentException if the head array exceeds the allocator's largest allocation
     */
    ListHeads(Reclamation reclamation, long headCount, String name) {
        this.core = new HarrisMichaelCore(Objects.requireNonNull(reclamation, "reclamation"));
        this.alloc = reclamation.allocator();
        if (headCount < 1 || headCount > alloc.maxAllocation() / Long.BYTES) {
            throw new IllegalArgumentException(headCount + " head words do not fit one allocation of at most "
                    + alloc.maxAllocation() + " bytes");
        }
        this.headCount = headCount;
        this.name = name;
        this.heads = alloc.allocate(headCount * Long.BYTES);
        alloc.region().slice(heads, headCount * Long.BYTES).fill((byte) 0); // allocated memory is not cleared
        VarHandle.releaseFence(); // the zeroed heads precede the publication of this structure
    }

    /** The head word of the list that holds {@code key}. */
    abstract long headOf(long key);

    @Override
    public final boolean insert(long key, long value) {
        checkOpen();
        return core.insert(headOf(key), key, value);
    }

    @Override
    public final boolean remove(long key) {
        checkOpen();
        return core.remove(headOf(key), key);
    }

    @Override
    public final boolean contains(long key) {
        checkOpen();
        return core.contains(headOf(key), key);
    }

    @Override
    public final long get(long key, long absent) {
        checkOpen();
        return core.get(headOf(key), key, absent);
    }

    @Override
    public final long size() {
        checkOpen();
        long n = 0;
        for (long i = 0; i < headCount; i++) n += core.count(heads + i * Long.BYTES);
        return n;
    }

    @Override
    public final Reclamation reclamation() {
        return core.reclamation();
    }

    @Override
    public final long incarnationMismatches() {
        return core.incarnationMismatches();
    }

    @Override
    public final synchronized void close() {
        checkOpen();
        closed = true;
        for (long i = 0; i < headCount; i++) core.freeAll(heads + i * Long.BYTES);
        alloc.free(heads);
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the " + name + " is closed");
    }
}
