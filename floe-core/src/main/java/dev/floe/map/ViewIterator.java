package dev.floe.map;

import java.lang.ref.Reference;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Iterator of a legacy view: walks a {@link Cursor} one entry ahead and hands out the entry as a
 * snapshot (key, value or entry, by the view's projection). {@code remove} removes the last key
 * returned from the map, as ConcurrentSkipListMap's iterators do. The views' spliterators wrap it
 * ({@link #spliterator}).
 */
final class ViewIterator<K, V, T> implements Iterator<T> {
    private final MapView<K, V> view;
    /** What the view hands out of an entry: its key, its value, or the entry itself. */
    private final Function<Map.Entry<K, V>, T> project;
    private final Cursor cursor;
    private Map.Entry<K, V> next;
    private K lastKey;

    ViewIterator(MapView<K, V> view, Function<Map.Entry<K, V>, T> project) {
        this.view = view;
        this.project = project;
        view.core.checkOpen();
        this.cursor = new Cursor(view.core, view.range);
        advance();
    }

    private void advance() {
        try {
            next = null;
            while (cursor.advance()) {
                Map.Entry<K, V> e = view.snapshot(cursor);
                if (e != null) {
                    next = e;
                    return;
                }
            }
        } finally {
            Reference.reachabilityFence(this); // the map outlives the call (OakMap, "Memory")
        }
    }

    @Override
    public boolean hasNext() {
        view.core.checkOpen();
        return next != null;
    }

    @Override
    public T next() {
        view.core.checkOpen();
        Map.Entry<K, V> e = next;
        if (e == null) throw new NoSuchElementException();
        lastKey = e.getKey();
        advance();
        return project.apply(e);
    }

    @Override
    public void remove() {
        if (lastKey == null) throw new IllegalStateException("next() was not called, or remove() was already called");
        view.core.checkOpen();
        view.root.remove(lastKey);
        lastKey = null;
    }

    /** Characteristics of the key and entry spliterators (ConcurrentSkipListMap's). */
    static final int SORTED_CHARACTERISTICS = Spliterator.CONCURRENT | Spliterator.DISTINCT | Spliterator.SORTED
            | Spliterator.ORDERED | Spliterator.NONNULL;
    /** Characteristics of the value spliterators (ConcurrentSkipListMap's). */
    static final int VALUE_CHARACTERISTICS = Spliterator.CONCURRENT | Spliterator.ORDERED | Spliterator.NONNULL;

    /**
     * A spliterator over a view's iterator, as ConcurrentSkipListMap's views report them:
     * CONCURRENT and never SIZED (the view may change while it runs, so no exact size holds, and a
     * stream that trusted one fails when the count differs), and, if {@code characteristics} has
     * SORTED, {@code order} as the comparator of it and of every prefix {@code trySplit} hands out.
     */
    static <T> Spliterator<T> spliterator(Iterator<T> it, int characteristics, Comparator<? super T> order) {
        Spliterator<T> s = Spliterators.spliteratorUnknownSize(it, characteristics);
        return (characteristics & Spliterator.SORTED) == 0 ? s : new Sorted<>(s, order);
    }

    /** A SORTED spliterator with its comparator (the JDK's iterator spliterators only know natural order). */
    private static final class Sorted<T> implements Spliterator<T> {
        private final Spliterator<T> s;
        private final Comparator<? super T> order;

        Sorted(Spliterator<T> s, Comparator<? super T> order) {
            this.s = s;
            this.order = order;
        }

        @Override
        public boolean tryAdvance(Consumer<? super T> action) {
            return s.tryAdvance(action);
        }

        @Override
        public void forEachRemaining(Consumer<? super T> action) {
            s.forEachRemaining(action);
        }

        @Override
        public Spliterator<T> trySplit() {
            Spliterator<T> prefix = s.trySplit();
            return prefix == null ? null : new Sorted<>(prefix, order);
        }

        @Override
        public long estimateSize() {
            return s.estimateSize();
        }

        @Override
        public int characteristics() {
            return s.characteristics();
        }

        @Override
        public Comparator<? super T> getComparator() {
            return order;
        }
    }
}
