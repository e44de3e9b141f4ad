package dev.floe.map;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Spliterator;
import java.util.function.Predicate;

/**
 * The entry set of a legacy view: snapshot entries; removal ({@code remove}, {@code removeIf})
 * removes a key only if it still maps to the entry's value, as in ConcurrentSkipListMap.
 */
final class EntrySetView<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final MapView<K, V> view;

    EntrySetView(MapView<K, V> view) {
        this.view = view;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return new ViewIterator<K, V, Map.Entry<K, V>>(view, e -> e);
    }

    /** Weakly consistent: CONCURRENT, DISTINCT, SORTED (by key), ORDERED, NONNULL; never SIZED. */
    @Override
    public Spliterator<Map.Entry<K, V>> spliterator() {
        return ViewIterator.spliterator(iterator(), ViewIterator.SORTED_CHARACTERISTICS,
                Map.Entry.comparingByKey(view.comparator()));
    }

    /**
     * Removes the entries that {@code filter} accepts, each only if its key still maps to the value
     * tested (a value replaced meanwhile stays), as ConcurrentSkipListMap does.
     */
    @Override
    public boolean removeIf(Predicate<? super Map.Entry<K, V>> filter) {
        Objects.requireNonNull(filter);
        boolean removed = false;
        for (Iterator<Map.Entry<K, V>> it = iterator(); it.hasNext(); ) {
            Map.Entry<K, V> e = it.next();
            if (filter.test(e) && view.remove(e.getKey(), e.getValue())) removed = true;
        }
        return removed;
    }

    @Override
    public boolean contains(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e)) return false; // a null key: NullPointerException from get, as the skip list's
        Object v = view.get(e.getKey());
        return v != null && v.equals(e.getValue());
    }

    @Override
    public boolean remove(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e)) return false; // a null key: NullPointerException, as the skip list's
        return view.remove(e.getKey(), e.getValue());
    }

    @Override
    public int size() {
        return view.size();
    }

    @Override
    public boolean isEmpty() {
        return view.isEmpty();
    }

    @Override
    public void clear() {
        view.clear();
    }
}
