package dev.floe.handle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.testing.LockstepRace;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Racing frees of one handle (a double free from two threads at once): exactly one returns, the
 * others throw {@link StaleHandleException}, and the id and the block are retired once. A move
 * races with the frees (the defragmenter does not know about them).
 *
 * <p>A second winner would retire the id twice: a later drain would hand the id out twice (two
 * live handles with one id, so writing one overwrites the other) or free the block twice. Both
 * are checked every round: fresh handles have distinct ids and read back their own stamps, and
 * the allocator's live bytes return to the same figure after every drain.
 */
class ConcurrentFreeTest {
    private static final long STRESS_SECONDS = Long.getLong("floe.stress.seconds", 3);
    private static final int HANDLES = 128;
    private static final int FREERS = 3;

    @Test
    void exactlyOneOfRacingFreesWinsAndTheIdIsRetiredOnce() throws Exception {
        try (FloeAllocator alloc = HandleTestSupport.allocator(); HandleSpace space = new HandleSpace(alloc)) {
            long[] handles = new long[HANDLES];
            AtomicIntegerArray wins = new AtomicIntegerArray(HANDLES);
            long deadline = System.nanoTime() + Math.max(500, STRESS_SECONDS * 1000 / 6) * 1_000_000L;
            long baseline = -1;
            // FREERS threads free every handle; the last racer moves it at the same moment
            try (LockstepRace race = new LockstepRace("free", FREERS + 1, HANDLES, (t, i) -> {
                try {
                    if (t == FREERS) space.move(handles[i]);
                    else {
                        space.free(handles[i]);
                        wins.incrementAndGet(i);
                    }
                } catch (StaleHandleException lost) {
                    // freed by another racer first: what every loser must see
                }
            })) {
                Queue<String> failures = race.failures();
                while (failures.isEmpty() && (race.rounds() < 4 || System.nanoTime() < deadline)) {
                    Set<Long> ids = new HashSet<>();
                    for (int i = 0; i < HANDLES; i++) {
                        handles[i] = space.allocate(16 + 8 * (i % 4));
                        if (!ids.add(Handle.id(handles[i]))) {
                            failures.add("round " + race.rounds() + ": id " + Handle.id(handles[i]) + " handed out twice");
                        }
                        long h = handles[i];
                        space.write(h, s -> {
                            s.set(JAVA_LONG, 0, h);
                            return null;
                        });
                        wins.set(i, 0);
                    }
                    for (long h : handles) {
                        long seen = space.read(h, s -> s.get(JAVA_LONG, 0));
                        if (seen != h) failures.add(Handle.toString(h) + " reads the stamp of " + Handle.toString(seen));
                    }
                    race.round();
                    for (int i = 0; i < HANDLES; i++) {
                        if (wins.get(i) != 1) failures.add("round " + race.rounds() + ", handle " + i + ": " + wins.get(i) + " frees won");
                        if (space.isLive(handles[i])) failures.add("round " + race.rounds() + ", handle " + i + " still live");
                    }
                    space.drainRetired();
                    long live = alloc.stats().liveBytes();
                    if (baseline < 0) baseline = live;
                    else if (live != baseline) failures.add("round " + race.rounds() + ": " + live + " live bytes after the drain, " + baseline + " after the first");
                }
                assertTrue(failures.isEmpty(), () -> failures.size() + " failures, first: " + failures.peek());
            }
            space.drainRetired();
            assertEquals(baseline, alloc.stats().liveBytes(), "every freed block went back once");
        }
    }
}
