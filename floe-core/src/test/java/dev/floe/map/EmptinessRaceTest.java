package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code isEmpty} of a view is linearizable: a view that is never empty is never reported empty.
 * The view holds one key, 5. The reader's {@code isEmpty} scan is stopped (by the
 * {@link StoppingComparator}, no timing) where it compares 5 with the view's bound, after it
 * passed the place of key {@code other}; meanwhile the test inserts {@code other} and then
 * removes 5. The view held 5, then 5 and {@code other}, then {@code other}: never empty. A
 * single scan, resumed, found 5 removed and nothing else, and answered "empty" (failed for all
 * four views before {@code Cursor.confirmedFirst}'s second scan).
 */
class EmptinessRaceTest {

    /** A view of keys below 100 (ascending or descending), legacy or zero-copy; other: where to insert. */
    enum View {
        HEAD_MAP(1, 100, m -> m.headMap(100L, false).isEmpty()),
        DESCENDING_TAIL_MAP(50, 0, m -> m.tailMap(0L, false).descendingMap().isEmpty()),
        ZC_HEAD_KEY_SET(1, 100, m -> m.zc().headMap(100L, false).keySet().isEmpty()),
        ZC_DESCENDING_VALUES(50, 0, m -> m.zc().tailMap(0L, false).descendingMap().values().isEmpty());

        final long other, bound;
        final Function<OakMap<Long, Long>, Boolean> isEmpty;

        View(long other, long bound, Function<OakMap<Long, Long>, Boolean> isEmpty) {
            this.other = other;
            this.bound = bound;
            this.isEmpty = isEmpty;
        }
    }

    @ParameterizedTest
    @EnumSource(View.class)
    void aViewThatWasNeverEmptyIsNeverReportedEmpty(View view) throws Exception {
        StoppingComparator cmp = new StoppingComparator(false, true);
        try (OakMap<Long, Long> map = OakMap.builder(OakCodecs.LONG, OakCodecs.LONG, cmp).build()) {
            map.put(5L, 50L);
            AtomicReference<Object> answer = new AtomicReference<>();
            Thread reader = Thread.ofPlatform().unstarted(() -> {
                try {
                    answer.set(view.isEmpty.apply(map));
                } catch (Throwable t) {
                    answer.set(t);
                }
            });
            AtomicInteger stops = new AtomicInteger();
            cmp.run(reader, (a, b) -> (a == 5 && b == view.bound) || (a == view.bound && b == 5), at -> {
                if (stops.getAndIncrement() > 0) return; // only the first scan's look at 5
                assertNull(map.put(view.other, 10L));
                assertEquals(50L, map.remove(5L));
            });
            assertTrue(stops.get() > 0, "the reader never compared 5 with the bound");
            if (answer.get() instanceof Throwable t) throw new AssertionError("isEmpty threw", t);
            assertFalse((Boolean) answer.get(), "isEmpty of a view that held 5, then 5 and "
                    + view.other + ", then " + view.other);
        }
    }
}
