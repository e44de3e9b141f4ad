package dev.floe.map;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An operation in progress keeps its map from the map's {@code Cleaner}. Once a method's last
 * read of a field of {@code this} is behind it, compiled code no longer keeps {@code this} alive;
 * for the last call on a map nothing else references ({@code return map.get(k)} at the end of a
 * method), the map can become unreachable while its own call still reads the map's memory, and
 * the Cleaner then released that memory under it: the call failed with "the map is closed" that
 * its caller never closed (a user codec or comparator that allocates is enough to start the GC).
 *
 * <p>Each case first runs its operation on fresh maps until the JIT has compiled the path (only
 * compiled code drops dead references; the interpreter keeps them), then arms the comparator and
 * the value codec, whose first call in each operation then runs a GC and gives the Cleaner time
 * to run before it answers. Before the fix 7 or 8 of these 15 cases failed (legacy {@code get},
 * {@code containsKey}, {@code put}, the key set's {@code contains}, the zero-copy {@code get},
 * {@code put} and {@code remove}), most of them in nearly every armed call; the others were
 * kept alive by chance (a lambda holding the view, an iterator).
 */
class OperationKeepsMapReachableTest {
    private static final int WARM_UP = 20_000;
    private static final int ARMED = 30;
    private static volatile boolean armed;
    /** Whether the current armed call already ran its GC (one per call keeps the test short). */
    private static boolean collected;

    /** Starts a GC and lets the Cleaner thread run, at the first codec or comparator call of an armed call. */
    private static void collectIfArmed() {
        if (!armed || collected) return;
        collected = true;
        System.gc();
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final OakComparator<Long> SLOW_KEYS = new OakComparator<>() {
        @Override
        public int compareKeys(Long a, Long b) {
            collectIfArmed();
            return OakCodecs.LONG.compareKeys(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            collectIfArmed();
            return OakCodecs.LONG.compareSerializedKeys(a, b);
        }

        @Override
        public int compareKeyAndSerializedKey(Long key, MemorySegment serialized) {
            collectIfArmed();
            return OakCodecs.LONG.compareKeyAndSerializedKey(key, serialized);
        }
    };

    private static final OakSerializer<Long> SLOW_VALUES = new OakSerializer<>() {
        @Override
        public void serialize(Long value, MemorySegment target) {
            collectIfArmed();
            OakCodecs.LONG.serialize(value, target);
        }

        @Override
        public Long deserialize(MemorySegment source) {
            collectIfArmed();
            return OakCodecs.LONG.deserialize(source);
        }

        @Override
        public int sizeOf(Long value) {
            return 8;
        }
    };

    static Stream<Arguments> operations() {
        List<Arguments> ops = new ArrayList<>();
        add(ops, "get", m -> m.get(5L));
        add(ops, "containsKey", m -> m.containsKey(5L));
        add(ops, "put", m -> m.put(5L, 6L));
        add(ops, "remove", m -> m.remove(5L));
        add(ops, "computeIfPresent", m -> m.computeIfPresent(5L, (k, v) -> v + 1));
        add(ops, "merge", m -> m.merge(5L, 1L, Long::sum));
        add(ops, "ceilingEntry", m -> m.ceilingEntry(4L));
        add(ops, "pollFirstEntry", m -> m.pollFirstEntry());
        add(ops, "subMap get", m -> m.subMap(0L, 10L).get(5L));
        add(ops, "keySet contains", m -> m.keySet().contains(5L));
        add(ops, "values iterator next", m -> m.values().iterator().next());
        add(ops, "zc put", m -> {
            m.zc().put(5L, 6L);
            return 6L;
        });
        add(ops, "zc remove", m -> m.zc().remove(5L));
        add(ops, "zc computeIfPresent", m -> m.zc().computeIfPresent(5L, w -> w.putLong(0, 7)));
        add(ops, "zc get", m -> m.zc().get(5L) != null);
        return ops.stream();
    }

    private static void add(List<Arguments> ops, String name, Function<OakMap<Long, Long>, Object> op) {
        ops.add(Arguments.of(name, op));
    }

    private static OakMap<Long, Long> fresh() {
        OakMap<Long, Long> m = OakMap.builder(OakCodecs.LONG, SLOW_VALUES, SLOW_KEYS).build();
        m.put(5L, 5L);
        return m;
    }

    /** The map is referenced by nothing but the operation's own frames. */
    private static Object onAFreshMap(Function<OakMap<Long, Long>, Object> op) {
        OakMap<Long, Long> m = fresh();
        collected = false; // the GC goes to the operation, not to the put that filled the map
        return op.apply(m);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void theLastCallOnAnUnreferencedMapCompletes(String name, Function<OakMap<Long, Long>, Object> op) {
        armed = false;
        for (int i = 0; i < WARM_UP; i++) onAFreshMap(op);
        armed = true;
        List<String> failures = new ArrayList<>();
        try {
            for (int i = 0; i < ARMED; i++) {
                try {
                    onAFreshMap(op);
                } catch (IllegalStateException e) {
                    failures.add(e.getMessage());
                }
            }
        } finally {
            armed = false;
        }
        assertEquals(List.of(), failures, name + ": calls failed on maps their caller never closed");
    }
}
