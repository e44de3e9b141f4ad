package dev.floe.map;

import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;

/** The entry set of a legacy view: snapshot entries; removal removes the key if it still maps to the value. */
final class EntrySetView<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final MapView<K, V> view;

    EntrySetView(MapView<K, V> view) {
        this.view = view;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return new ViewIterator<K, V, Map.Entry<K, V>>(view) {
            @Override
            Map.Entry<K, V> project(Map.Entry<K, V> e) {
                return e;
            }
        };
    }

    @Override
    public boolean contains(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null) return false;
        Object v = view.get(e.getKey());
        return v != null && v.equals(e.getValue());
    }

    @Override
    public boolean remove(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null) return false;
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
