package dev.floe.map;

import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Iterator of a legacy view: walks a {@link Cursor} one entry ahead and hands out the entry as a
 * snapshot (key, value or entry, by {@link #project}). {@code remove} removes the last key
 * returned from the map, as ConcurrentSkipListMap's iterators do.
 */
abstract class ViewIterator<K, V, T> implements Iterator<T> {
    private final MapView<K, V> view;
    private final Cursor cursor;
    private Map.Entry<K, V> next;
    private K lastKey;

    ViewIterator(MapView<K, V> view) {
        this.view = view;
        view.core.checkOpen();
        this.cursor = new Cursor(view.core, view.range);
        advance();
    }

    private void advance() {
        next = null;
        while (cursor.advance()) {
            Map.Entry<K, V> e = view.snapshot(cursor);
            if (e != null) {
                next = e;
                return;
            }
        }
    }

    abstract T project(Map.Entry<K, V> e);

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
        return project(e);
    }

    @Override
    public void remove() {
        if (lastKey == null) throw new IllegalStateException("next() was not called, or remove() was already called");
        view.core.checkOpen();
        view.root.remove(lastKey);
        lastKey = null;
    }
}
