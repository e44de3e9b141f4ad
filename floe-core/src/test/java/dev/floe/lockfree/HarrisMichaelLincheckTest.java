package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

import java.util.TreeMap;

/**
 * Linearizability of insert/remove/contains/get with Lincheck in stress mode (the model checker
 * cannot see off-heap memory). Limbo lists of one node, so scenarios reclaim and warn constantly.
 * One allocator serves every scenario instance; each instance has its own structure.
 */
class HarrisMichaelLincheckTest {
    static final FloeAllocator ALLOC = Schemes.allocator();

    @Param(name = "key", gen = IntGen.class, conf = "1:5")
    public abstract static class Ops {
        final LockFreeLongMap m;

        Ops(LockFreeLongMap m) {
            this.m = m;
        }

        @Operation
        public boolean insert(@Param(name = "key") int k) {
            return m.insert(k, k * 10L);
        }

        @Operation
        public boolean remove(@Param(name = "key") int k) {
            return m.remove(k);
        }

        @Operation
        public boolean contains(@Param(name = "key") int k) {
            return m.contains(k);
        }

        @Operation
        public long get(@Param(name = "key") int k) {
            return m.get(k, -1);
        }
    }

    public static class ListOaVer extends Ops {
        public ListOaVer() {
            super(new HarrisMichaelList(Reclamation.oaVer(ALLOC, 1)));
        }
    }

    public static class ListOaBit extends Ops {
        public ListOaBit() {
            super(new HarrisMichaelList(Reclamation.oaBit(ALLOC, 1)));
        }
    }

    public static class HashOaVer extends Ops {
        public HashOaVer() {
            super(new MichaelHashTable(Reclamation.oaVer(ALLOC, 1), 2));
        }
    }

    public static class Spec {
        private final TreeMap<Integer, Long> m = new TreeMap<>();

        public boolean insert(int k) {
            return m.putIfAbsent(k, k * 10L) == null;
        }

        public boolean remove(int k) {
            return m.remove(k) != null;
        }

        public boolean contains(int k) {
            return m.containsKey(k);
        }

        public long get(int k) {
            return m.getOrDefault(k, -1L);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Spec s && m.equals(s.m);
        }

        @Override
        public int hashCode() {
            return m.hashCode();
        }
    }

    private static StressOptions options() {
        return new StressOptions()
                .iterations(Integer.getInteger("floe.lincheck.iterations", 7))
                .invocationsPerIteration(Integer.getInteger("floe.lincheck.invocations", 200))
                .threads(2)
                .actorsPerThread(4)
                .actorsBefore(3)
                .actorsAfter(2)
                .minimizeFailedScenario(Boolean.getBoolean("floe.lincheck.minimize"))
                .sequentialSpecification(Spec.class);
    }

    @Test
    void listWithOaVerIsLinearizable() {
        options().check(ListOaVer.class);
    }

    @Test
    void listWithOaBitIsLinearizable() {
        options().check(ListOaBit.class);
    }

    @Test
    void hashTableWithOaVerIsLinearizable() {
        options().check(HashOaVer.class);
    }
}
