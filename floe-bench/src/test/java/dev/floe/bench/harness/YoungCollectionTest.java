package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.lang.management.GarbageCollectorMXBean;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link YoungCollection}: it finds the young collector and returns only after one more young collection ran. */
class YoungCollectionTest {

    @Test
    void returnsOnlyAfterTheYoungCollectorRan() {
        GarbageCollectorMXBean young = YoungCollection.youngCollector();
        assertNotNull(young, "the test JVM's collector (G1 by default) has a young generation");
        for (int round = 0; round < 3; round++) {
            long before = young.getCollectionCount();
            assertTrue(YoungCollection.run());
            assertTrue(young.getCollectionCount() > before, "a young collection ended before run() returned");
        }
    }
}
