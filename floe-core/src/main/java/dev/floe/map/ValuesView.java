package dev.floe.map;

import java.util.AbstractCollection;
import java.util.Iterator;
import java.util.Map;

/** The values of a legacy view, deserialized, in the view's key order. */
final class ValuesView<K, V> extends AbstractCollection<V> {
    private final MapView<K, V> view;

    ValuesView(MapView<K, V> view) {
        this.view = view;
    }

    @Override
    public Iterator<V> iterator() {
        return new ViewIterator<K, V, V>(view) {
            @Override
            V project(Map.Entry<K, V> e) {
                return e.getValue();
            }
        };
    }

    @Override
    public boolean contains(Object o) {
        return o != null && view.containsValue(o);
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
