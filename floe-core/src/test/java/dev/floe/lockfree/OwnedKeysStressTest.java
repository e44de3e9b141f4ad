package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every result checked, not only the final state: each thread owns the keys {@code k} with
 * {@code k % threads == id}, interleaved with the other threads' keys in the same list (or the
 * same hash chains), so its walks cross nodes the others unlink and free all the time, while
 * what its own operations must return is known exactly from its own past: insert succeeds iff
 * the key is absent, remove iff present, contains says which, and get returns the very value
 * the thread last inserted. {@link ConcurrentHistoryChecker} counts only successful updates and
 * checks a found value's key, so a read that goes astray through a freed and reused node and
 * answers "absent" (or an update that fails on such a walk) passes it; here it fails at once.
 * Runs {@code floe.stress.seconds / 6} per case (0.5 s by default).
 */
class OwnedKeysStressTest {
    private static final long MILLIS = Math.max(500, Long.getLong("floe.stress.seconds", 3) * 1000 / 6);

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("list", "oa-bit"),
                Arguments.of("list", "oa-ver"),
                Arguments.of("list", "floe-ebr"),
                Arguments.of("hash", "oa-bit"),
                Arguments.of("hash", "oa-ver"),
                Arguments.of("hash", "floe-ebr"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void everyResultMatchesTheOwnersModel(String kind, String scheme) throws Exception {
        int threads = 4;
        int keys = kind.equals("list") ? 64 : 512;
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Schemes.of(scheme, alloc, 8); // small limbo: nodes freed soon after unlink
            LockFreeLongMap m = Schemes.structure(kind, rec, keys / 8);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long end = System.nanoTime() + MILLIS * 1_000_000L;
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                final int id = t;
                ts[t] = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        own(m, id, threads, keys, end);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            for (Thread t : ts) {
                if (!t.join(java.time.Duration.ofMinutes(1))) throw new AssertionError("an operation did not return within a minute");
            }
            if (failure.get() != null) throw new AssertionError(scheme + ": " + failure.get().getMessage(), failure.get());
            assertEquals(0, m.incarnationMismatches(), "CASes on a node of another incarnation");
            m.close();
        }
    }

    private static void own(LockFreeLongMap m, int id, int threads, int keys, long end) {
        long[] model = new long[keys / threads]; // the value present under the key, or 0: absent
        SplittableRandom rnd = new SplittableRandom(id * 977L + 13);
        long seq = 1;
        while (System.nanoTime() < end) seq = ownedKeyOps(m, id, threads, model, rnd, seq);
    }

    /**
     * Runs 64 random operations on the keys of owner {@code id} and checks each result against
     * {@code model} (the value present under each of its keys, or 0: absent), which it updates;
     * returns the next sequence number for values. The model may pass from thread to thread (with
     * a happens-before edge) between calls.
     */
    static long ownedKeyOps(LockFreeLongMap m, int id, int threads, long[] model, SplittableRandom rnd, long seq) {
        int mine = model.length;
        for (int i = 0; i < 64; i++) {
            int slot = rnd.nextInt(mine);
            long k = (long) slot * threads + id;
            long expected = model[slot];
            int op = rnd.nextInt(8);
            if (op < 3) {
                long v = ConcurrentHistoryChecker.value(id, (int) k, seq++);
                boolean inserted = m.insert(k, v);
                if (inserted != (expected == 0)) {
                    throw new AssertionError("insert(" + k + ") returned " + inserted + " but the key was "
                            + (expected == 0 ? "absent" : "present") + " (only its owner changes it)");
                }
                if (inserted) model[slot] = v;
            } else if (op < 5) {
                boolean removed = m.remove(k);
                if (removed != (expected != 0)) {
                    throw new AssertionError("remove(" + k + ") returned " + removed + " but the key was "
                            + (expected == 0 ? "absent" : "present") + " (only its owner changes it)");
                }
                model[slot] = 0;
            } else if (op == 5) {
                boolean present = m.contains(k);
                if (present != (expected != 0)) {
                    throw new AssertionError("contains(" + k + ") returned " + present + " but the key was "
                            + (expected == 0 ? "absent" : "present") + " (only its owner changes it)");
                }
            } else {
                long got = m.get(k, 0);
                if (got != expected) {
                    throw new AssertionError("get(" + k + ") returned " + Long.toHexString(got) + " but its owner last wrote "
                            + Long.toHexString(expected) + " (0: absent)");
                }
            }
        }
        return seq;
    }
}
