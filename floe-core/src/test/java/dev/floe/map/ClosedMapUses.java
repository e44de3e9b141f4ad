package dev.floe.map;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Test support: the uses of a closed map (or of its views, iterators, buffers) that were not refused. */
final class ClosedMapUses {
    private ClosedMapUses() {}

    /**
     * Runs every named use and returns those that did not throw {@link IllegalStateException}
     * (no exception, or another one), each with what happened.
     */
    static List<String> notRefused(Map<String, Runnable> uses) {
        List<String> wrong = new ArrayList<>();
        uses.forEach((name, use) -> {
            try {
                use.run();
                wrong.add(name + ": no exception");
            } catch (IllegalStateException expected) {
                // refused, as documented
            } catch (RuntimeException e) {
                wrong.add(name + ": " + e);
            }
        });
        return wrong;
    }
}
