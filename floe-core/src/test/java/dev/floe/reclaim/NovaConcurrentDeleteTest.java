package dev.floe.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import dev.floe.memory.RegionMode;
import dev.floe.testing.LockstepRace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Racing deletes (Nova paper, algorithm 2 line 36: the header CAS decides): however many threads
 * delete the same slice at once, exactly one {@code delete} returns true, and the slice is retired
 * exactly once (a second retire would free the block twice, which the allocator refuses with
 * {@code IllegalFreeException}, or hand it out twice).
 *
 * <p>Two flavours per round: every thread deletes through its own copy of the live pointer; or
 * some threads hold copies of the live pointer and the others <em>stale</em> pointers to earlier
 * incarnations of the same block (batch 1, so the block is reused at once) — then the winner must
 * be a thread with the live pointer. The deleters race in lock step ({@link LockstepRace}: they
 * spin, so the ones on a CPU start each round within a few nanoseconds of each other; a blocking
 * barrier's wake-ups are microseconds apart, longer than a delete). Rounds repeat for
 * {@code floe.stress.seconds / 2} split over the thread counts.
 */
class NovaConcurrentDeleteTest {
    private static final long MILLIS_PER_CASE = Math.max(150, NovaTestSupport.STRESS_SECONDS * 1000 / 2 / 7);

    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 3, 4, 5, 6, 7, 8})
    void exactlyOneOfRacingDeletesSucceeds(int threads) throws Exception {
        try (FloeAllocator alloc = NovaTestSupport.open(RegionMode.MAPPED)) {
            Nova nova = new Nova(alloc, 1);
            // copies of the pointers under test: live[t] for thread t, stale[t] for thread t
            AtomicLongArray live = new AtomicLongArray(threads);
            AtomicLongArray stale = new AtomicLongArray(threads);
            AtomicIntegerArray won = new AtomicIntegerArray(threads);
            long rounds;
            long mixedRounds = 0;
            long deadline = System.nanoTime() + MILLIS_PER_CASE * 1_000_000;
            // earlier incarnations of each block: header offset -> stale pointers
            Map<Long, List<Long>> incarnations = new HashMap<>();
            try (LockstepRace race = new LockstepRace("deleter", threads, 1, (t, item) -> {
                long mine = stale.get(t) != 0 ? stale.get(t) : live.get(t);
                won.set(t, nova.delete(mine) ? 1 : 0);
            })) {
                while (race.failures().isEmpty() && (race.rounds() < 200 || System.nanoTime() < deadline)) {
                    // trim now and then: the winners free into their own cache stripes, and the
                    // blocks must come back to this thread for stale pointers to exist
                    if (race.rounds() % 16 == 0) alloc.trim();
                    long p = nova.allocate(24);
                    List<Long> previous = incarnations.computeIfAbsent(SafePointer.headerOffset(p), h -> new ArrayList<>());
                    boolean mixed = !previous.isEmpty();
                    for (int t = 0; t < threads; t++) {
                        live.set(t, p);
                        // in mixed rounds every other thread (never thread 0) holds a stale copy
                        stale.set(t, mixed && (t & 1) == 1 ? previous.get(t % previous.size()) : 0);
                        won.set(t, -1);
                    }
                    race.round();
                    if (!race.failures().isEmpty()) break;
                    int winners = 0;
                    for (int t = 0; t < threads; t++) {
                        int w = won.get(t);
                        assertTrue(w == 0 || w == 1, "thread " + t + " reported " + w);
                        if (w == 1) {
                            winners++;
                            assertEquals(0, stale.get(t), "a delete through a stale pointer succeeded");
                        }
                    }
                    assertEquals(1, winners, "round " + race.rounds() + ": exactly one delete wins");
                    assertFalse(nova.delete(p), "the slice is deleted after the round");
                    assertEquals(-1, nova.length(p));
                    if (previous.size() < 8) previous.add(p);
                    if (mixed) mixedRounds++;
                }
                assertTrue(race.failures().isEmpty(), () -> "a deleter failed: " + race.failures().peek());
                rounds = race.rounds();
            }
            assertTrue(mixedRounds > 0, "some rounds raced stale pointers against the live one");
            // every slice was retired exactly once: nothing live, nothing waiting, no double free
            NovaTestSupport.assertAllReclaimed(nova);
            System.out.printf("racing deletes, %d threads: %d rounds (%d with stale copies)%n",
                    threads, rounds, mixedRounds);
        }
    }
}
