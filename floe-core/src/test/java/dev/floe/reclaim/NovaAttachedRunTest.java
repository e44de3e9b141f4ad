package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.*;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.FloeOutOfMemoryException;
import dev.floe.memory.Region;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Nova#allocateWithRun}: a slice that owns a large block. The run's offset is out of
 * every view's reach, the slice behaves as any other, and the run is freed exactly when the slice
 * is: after its delete, once no hazard slot holds it (also for private deletes), in both header
 * modes; a failed allocation leaves nothing behind.
 */
class NovaAttachedRunTest {
    private static final long RUN = 200_000;

    private static FloeAllocator open() {
        return NovaTestSupport.open(Region.detectMode());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theRunLivesAndDiesWithItsSlice(boolean magic) {
        try (FloeAllocator a = open()) {
            Nova nova = new Nova(a, 1, magic); // batch 1: a delete frees at once when unprotected
            long p = nova.allocateWithRun(16, RUN);
            long st = nova.beginRead(p);
            assertTrue(Nova.hasRun(st));
            assertEquals(16, Nova.stampLength(st), "the run word is not part of the slice's length");
            long run = nova.runOf(p, st);
            assertTrue(a.usableSize(run) >= RUN);
            assertEquals(1, a.stats().largeRuns());
            // the slice's own views end before the run word
            assertEquals(16, nova.writeOr(p, (view, x) -> view.byteSize(), null, -1L));
            nova.region().setLongPlain(run + RUN - 8, 77L); // the run is the caller's memory
            assertEquals(77L, nova.region().getLongPlain(run + RUN - 8));
            // a writer's hazard slot keeps the slice, and so its run
            int slot = nova.protect(p);
            assertTrue(nova.delete(p));
            nova.reclaimNow();
            assertEquals(1, a.stats().largeRuns(), "protected: the run stays allocated");
            assertEquals(run, nova.runOf(p, nova.beginReadAny(p)), "and the run word stays");
            nova.unprotect(slot);
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns(), "freed with its slice");
            assertEquals(0, a.stats().liveBytes());
            assertFalse(nova.delete(p), "deleted once");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void privateDeleteFreesTheRunToo(boolean magic) {
        try (FloeAllocator a = open()) {
            Nova nova = new Nova(a, 1, magic);
            for (int i = 0; i < 10; i++) nova.deletePrivate(nova.allocateWithRun(8, RUN * (i + 1)));
            nova.reclaimNow();
            assertEquals(0, a.stats().largeRuns());
            assertEquals(0, a.stats().liveBytes());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aSliceWithoutARunHasNone(boolean magic) {
        try (FloeAllocator a = open()) {
            Nova nova = new Nova(a, 1, magic);
            long p = nova.allocate(24);
            long st = nova.beginRead(p);
            assertFalse(Nova.hasRun(st));
            assertEquals(0, nova.runOf(p, st));
            // a slice whose data happens to hold what looks like a run word frees only itself
            nova.writeOr(p, (view, x) -> { view.set(ValueLayout.JAVA_LONG, 16, 12345L); return 0; }, null, -1);
            assertTrue(nova.delete(p));
            nova.reclaimNow();
            assertEquals(0, a.stats().liveBytes());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFailedAllocationLeavesNothingAllocated(boolean magic) {
        // the run fits the budget; the slice's block needs a fresh superblock that does not
        try (FloeAllocator a = NovaTestSupport.builder(Region.detectMode()).budget(300L << 10).build()) {
            Nova nova = new Nova(a, 1, magic);
            assertThrows(FloeOutOfMemoryException.class, () -> nova.allocateWithRun(16, 200L << 10));
            assertEquals(0, a.stats().largeRuns());
            assertEquals(0, a.stats().liveBytes());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void badArgumentsAreRefused(boolean magic) {
        try (FloeAllocator a = open()) {
            Nova nova = new Nova(a, 1, magic);
            assertThrows(IllegalArgumentException.class, () -> nova.allocateWithRun(-1, RUN));
            assertThrows(IllegalArgumentException.class, () -> nova.allocateWithRun(nova.maxSlice() - 7, RUN));
            assertThrows(IllegalArgumentException.class, () -> nova.allocateWithRun(16, 0));
            assertThrows(IllegalArgumentException.class, () -> nova.allocateWithRun(16, a.maxAllocation() + 1));
            long p = nova.allocateWithRun(nova.maxSlice() - 8, RUN); // the largest slice that leaves room for the word
            assertEquals(nova.maxSlice() - 8, nova.length(p));
            assertEquals(0, a.stats().largeRuns() - 1);
        }
    }
}
