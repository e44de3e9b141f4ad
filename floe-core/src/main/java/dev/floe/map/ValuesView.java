package dev.floe.map;

import java.util.AbstractCollection;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Spliterator;
import java.util.function.Predicate;

/**
 * The values of a legacy view, deserialized, in the view's key order. {@code removeIf} removes a
 * key only if it still maps to the value tested, as in ConcurrentSkipListMap.
 */
final class ValuesView<K, V> extends AbstractCollection<V> {
    private final MapView<K, V> view;

    ValuesView(MapView<K, V> view) {
        this.view = view;
    }

    @Override
    public Iterator<V> iterator() {
        return new ViewIterator<K, V, V>(view, Map.Entry::getValue);
    }

    /** Weakly consistent: CONCURRENT, ORDERED, NONNULL; never SIZED. */
    @Override
    public Spliterator<V> spliterator() {
        return ViewIterator.spliterator(iterator(), ViewIterator.VALUE_CHARACTERISTICS, null);
    }

    /**
     * Removes the values that {@code filter} accepts, each only if its key still maps to the value
     * tested (a value replaced meanwhile stays), as ConcurrentSkipListMap does.
     */
    @Override
    public boolean removeIf(Predicate<? super V> filter) {
        Objects.requireNonNull(filter);
        return new EntrySetView<>(view).removeIf(e -> filter.test(e.getValue()));
    }

    @Override
    public boolean contains(Object o) {
        return view.containsValue(o); // null: NullPointerException, as the skip list's
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
