package dev.floe.bench.somar;

import dev.floe.bench.harness.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The skiplist map against a {@link TreeMap}: results of put, delete and get, and the values read. */
class SlMapTest {

    @ParameterizedTest
    @ValueSource(strings = {"floe-nova", "floe-ebr", "floe-he", "grow-only", "gc-g1", "segment-per-object"})
    void sequentialOperationsMatchATreeMap(String impl) {
        try (BenchMap map = SomarImpl.byLabel(impl).open(Structure.SL, Sizing.of(Mode.QUICK))) {
            TreeMap<Long, Long> model = new TreeMap<>();
            Probe p = map.newProbe();
            Random r = new Random(11);
            for (int i = 0; i < 20_000; i++) {
                long id = r.nextInt(500);
                p.key(id);
                switch (r.nextInt(3)) {
                    case 0 -> {
                        assertEquals(!model.containsKey(id), map.put(p), "put " + id);
                        model.put(id, p.seq());
                    }
                    case 1 -> assertEquals(model.remove(id) != null, map.delete(p), "delete " + id);
                    default -> {
                        boolean found = map.get(p);
                        assertEquals(model.containsKey(id), found, "get " + id);
                        if (found) assertEquals(model.get(id), (long) Keys.BE_LONG.get(p.out, 0), "value of " + id);
                    }
                }
            }
            assertEquals(model.size(), map.size());
        }
    }
}
