package dev.floe.bench.map;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The on-heap dictionary of one string dimension of the rollup index (Druid's
 * {@code StringDimensionIndexer} dictionary): every distinct value gets the next integer id, in
 * order of first appearance, and keys hold the id instead of the string. It is auxiliary state of
 * the index, kept on-heap by both implementations (as in the Oak paper's I²-Oak) and counted in
 * both overheads. Single writer: one ingesting thread per index.
 */
final class RollupDictionary {

    private final HashMap<String, Integer> ids = new HashMap<>();
    private final List<String> values = new ArrayList<>();

    /** The id of {@code value}, assigning the next one on first sight. */
    int id(String value) {
        Integer id = ids.get(value);
        if (id != null) return id;
        int next = values.size();
        ids.put(value, next);
        values.add(value);
        return next;
    }

    /** The id of {@code value}, or -1 if it was never seen. */
    int lookup(String value) {
        Integer id = ids.get(value);
        return id == null ? -1 : id;
    }

    /** The value of {@code id}. */
    String value(int id) {
        return values.get(id);
    }

    /** Number of distinct values seen. */
    int size() {
        return values.size();
    }
}
