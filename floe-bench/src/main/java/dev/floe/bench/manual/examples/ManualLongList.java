package dev.floe.bench.manual.examples;

import dev.floe.manual.ManualHeap;
import dev.floe.manual.Owner;
import dev.floe.manual.Shield;

import java.util.function.LongPredicate;

/**
 * A growable list of {@code long}s whose spine (the element array) is a manual object: the
 * Snowflake paper's "lists with manual spines" (section 3.5), where {@code List<T>}'s
 * {@code T[] _items} becomes {@code Owner<T[]> _items}.
 *
 * <ul>
 *   <li>Every method that reads the spine defends it with a shield for the duration of the
 *       access (the paper's {@code Find}).</li>
 *   <li>Growing allocates a new spine, copies the elements under shields on both, and moves the
 *       new spine into the owner, which abandons the old one (the paper's resize with
 *       {@code Move}).</li>
 *   <li>{@link #abandon()} frees the spine explicitly: the one method the paper adds to the API.</li>
 * </ul>
 * Like {@code java.util.ArrayList}, mutation is not thread-safe; reads may run on other threads
 * while the owner thread grows the list — a reader's shield keeps the spine it defended alive,
 * and it sees the elements that spine held.
 */
public final class ManualLongList {
    private static final int INITIAL_CAPACITY = 4;

    private final ManualHeap heap;
    private final Owner items;
    private volatile int size;

    public ManualLongList(ManualHeap heap) {
        this.heap = heap;
        this.items = heap.create((long) INITIAL_CAPACITY * Long.BYTES);
    }

    public int size() {
        return size;
    }

    /** Appends {@code value}, growing the spine (doubling) when it is full. */
    public void add(long value) {
        int n = size;
        try (Shield s = items.defend()) {
            if ((long) n * Long.BYTES < s.byteSize()) {
                s.setLong((long) n * Long.BYTES, value);
                size = n + 1;
                return;
            }
        }
        grow(n);
        try (Shield s = items.defend()) {
            s.setLong((long) n * Long.BYTES, value);
        }
        size = n + 1;
    }

    /** The element at {@code index}. */
    public long get(int index) {
        checkIndex(index);
        try (Shield s = items.defend()) {
            return s.getLong((long) index * Long.BYTES);
        }
    }

    /** Replaces the element at {@code index}. */
    public void set(int index, long value) {
        checkIndex(index);
        try (Shield s = items.defend()) {
            s.setLong((long) index * Long.BYTES, value);
        }
    }

    /** The index of the first element that matches, or -1 (the paper's {@code Find}, one shield for the scan). */
    public int find(LongPredicate match) {
        int n = size;
        try (Shield s = items.defend()) {
            for (int i = 0; i < n; i++) {
                if (match.test(s.getLong((long) i * Long.BYTES))) return i;
            }
        }
        return -1;
    }

    /** Frees the spine (once no reader's shield holds it); the list cannot be used afterwards. */
    public void abandon() {
        items.abandon();
    }

    private void grow(int n) {
        Owner bigger = heap.create(Math.max(INITIAL_CAPACITY, 2L * n) * Long.BYTES);
        try (Shield from = items.defend(); Shield to = bigger.defend()) {
            to.copyFrom(from, 0, 0, (long) n * Long.BYTES);
        }
        items.move(bigger); // abandons the old spine: freed once no reader defends it
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= size) throw new IndexOutOfBoundsException("index " + index + ", size " + size);
    }
}
