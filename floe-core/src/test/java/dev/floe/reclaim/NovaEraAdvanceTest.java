package dev.floe.reclaim;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Nova advances the era only for batches holding a slice born in the current era: retiring
 * older slices costs no era, and their blocks still come back with a different version.
 */
class NovaEraAdvanceTest {

    @Test
    void retiringSlicesBornInEarlierErasDoesNotAdvanceTheEraYetReuseChangesTheirVersion() {
        try (FloeAllocator alloc = FloeAllocator.builder().regionSize(1L << 30).jmx(false).build()) {
            Nova nova = new Nova(alloc, 1);
            List<Long> old = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                long p = nova.allocate(40);
                nova.writePrivate(p, (s, v) -> { s.set(JAVA_LONG, 0, v); return null; }, p);
                old.add(p);
            }
            // a slice born now and deleted now: its batch must advance the era
            long eraBefore = nova.era();
            assertTrue(nova.delete(nova.allocate(40)));
            nova.reclaimNow();
            assertEquals(eraBefore + 1, nova.era(), "a batch with a slice born in the current era advances it");

            // the old slices were born in the previous era: retiring them advances nothing
            long eraNow = nova.era();
            for (long p : old) assertTrue(nova.delete(p));
            nova.reclaimNow();
            assertEquals(eraNow, nova.era(), "slices born in earlier eras retire without an era");

            // their blocks come back with the current era's version, never their old one
            Map<Long, Long> oldByHeader = new HashMap<>();
            for (long p : old) oldByHeader.put(SafePointer.headerOffset(p), p);
            int reused = 0;
            for (int i = 0; i < 256; i++) {
                long q = nova.allocate(40);
                Long stale = oldByHeader.get(SafePointer.headerOffset(q));
                if (stale != null) {
                    reused++;
                    assertNotEquals(SafePointer.version(stale), SafePointer.version(q));
                    assertEquals(-1L, nova.readOr(stale, s -> s.get(JAVA_LONG, 0), -1L));
                    assertFalse(nova.delete(stale));
                }
            }
            assertTrue(reused > 0, "some old blocks were reallocated");
        }
    }
}
