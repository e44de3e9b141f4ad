package dev.floe.map;

import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedSet;
import java.util.Spliterator;

/**
 * The navigable key set of a legacy view (ConcurrentSkipListMap's KeySet design): every method
 * delegates to the view, sub-sets are key sets of sub-views. {@code add} is not supported, as in
 * every map key set (the JDK contract allows it).
 */
final class KeySetView<K> extends AbstractSet<K> implements NavigableSet<K> {
    private final MapView<K, ?> view;

    KeySetView(MapView<K, ?> view) {
        this.view = view;
    }

    @Override
    public Iterator<K> iterator() {
        return iterator(view);
    }

    private static <K, V> Iterator<K> iterator(MapView<K, V> v) {
        return new ViewIterator<K, V, K>(v, Map.Entry::getKey);
    }

    /** Weakly consistent: CONCURRENT, DISTINCT, SORTED (by {@link #comparator()}), ORDERED, NONNULL; never SIZED. */
    @Override
    public Spliterator<K> spliterator() {
        return ViewIterator.spliterator(iterator(), ViewIterator.SORTED_CHARACTERISTICS, comparator());
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
    public boolean contains(Object o) {
        return view.containsKey(o);
    }

    @Override
    public boolean remove(Object o) {
        return view.remove(o) != null;
    }

    @Override
    public void clear() {
        view.clear();
    }

    @Override
    public K lower(K k) {
        return view.lowerKey(k);
    }

    @Override
    public K floor(K k) {
        return view.floorKey(k);
    }

    @Override
    public K ceiling(K k) {
        return view.ceilingKey(k);
    }

    @Override
    public K higher(K k) {
        return view.higherKey(k);
    }

    @Override
    public Comparator<? super K> comparator() {
        return view.comparator();
    }

    @Override
    public K first() {
        return view.firstKey();
    }

    @Override
    public K last() {
        return view.lastKey();
    }

    @Override
    public K pollFirst() {
        return MapView.keyOf(view.pollFirstEntry());
    }

    @Override
    public K pollLast() {
        return MapView.keyOf(view.pollLastEntry());
    }

    @Override
    public NavigableSet<K> descendingSet() {
        return view.descendingKeySet();
    }

    @Override
    public Iterator<K> descendingIterator() {
        return descendingSet().iterator();
    }

    @Override
    public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
        return sub(view.subMap(from, fromInclusive, to, toInclusive));
    }

    @Override
    public NavigableSet<K> headSet(K to, boolean inclusive) {
        return sub(view.headMap(to, inclusive));
    }

    @Override
    public NavigableSet<K> tailSet(K from, boolean inclusive) {
        return sub(view.tailMap(from, inclusive));
    }

    @Override
    public SortedSet<K> subSet(K from, K to) {
        return subSet(from, true, to, false);
    }

    @Override
    public SortedSet<K> headSet(K to) {
        return headSet(to, false);
    }

    @Override
    public SortedSet<K> tailSet(K from) {
        return tailSet(from, true);
    }

    private static <K> NavigableSet<K> sub(Object subView) {
        @SuppressWarnings("unchecked")
        MapView<K, ?> v = (MapView<K, ?>) subView;
        return new KeySetView<>(v);
    }
}
