package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent stress: set semantics against per-thread histories ({@link ConcurrentHistoryChecker}),
 * no CAS on a node of another incarnation, exact node accounting (every retired node freed once
 * after {@link Reclamation#reclaimIdle}, the allocator's live bytes = nodes present), and — for
 * the OA schemes — warnings that really fire and restarts that really happen under churn.
 */
class LockFreeStressTest {
    private static final long MILLIS = 600;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("list", "oa-bit", 4, 64),
                Arguments.of("list", "oa-ver", 4, 64),
                Arguments.of("list", "floe-ebr", 4, 64),
                Arguments.of("list", "nr", 2, 64),
                Arguments.of("hash", "oa-bit", 8, 512),
                Arguments.of("hash", "oa-ver", 8, 512),
                Arguments.of("hash", "floe-ebr", 3, 512),
                Arguments.of("hash", "nr", 2, 512));
    }

    @ParameterizedTest(name = "{0} {1} threads={2}")
    @MethodSource("cases")
    void finalStateMatchesTheHistoriesAndEveryNodeIsAccountedFor(String kind, String scheme,
                                                                 int threads, int keys) throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Schemes.of(scheme, alloc, 8); // small limbo: many reclamations
            LockFreeLongMap m = Schemes.structure(kind, rec, keys / 8); // hash: chains of ~6
            ConcurrentHistoryChecker h = new ConcurrentHistoryChecker(m, keys, threads);
            h.run(MILLIS, false);
            assertEquals(List.of(), h.violations());
            checkAccounting(alloc, rec, m, h.present().size(), kind);
            Reclamation.Stats s = rec.stats();
            if (scheme.startsWith("oa-")) {
                assertTrue(s.warnings() > 0, "no warning was ever sent: " + s);
                assertTrue(s.restarts() > 0, "no operation ever restarted: " + s);
            }
            m.close();
        }
    }

    /** Virtual threads (many more than cores) share a bounded table of participants. */
    @Test
    void virtualThreadsShareABoundedParticipantTable() throws Exception {
        try (FloeAllocator alloc = Schemes.allocator()) {
            Reclamation rec = Reclamation.oaVer(alloc, 8);
            LockFreeLongMap m = new HarrisMichaelList(rec);
            ConcurrentHistoryChecker h = new ConcurrentHistoryChecker(m, 64, 64);
            h.run(MILLIS, true);
            assertEquals(List.of(), h.violations());
            Reclamation.Stats s = rec.stats();
            assertTrue(s.participants() <= 4 * Math.max(4, Runtime.getRuntime().availableProcessors() * 2),
                    "participants must follow concurrent operations, not threads: " + s);
            assertTrue(s.restarts() > 0 && s.warnings() > 0, "warnings and restarts must happen: " + s);
            checkAccounting(alloc, rec, m, h.present().size(), "list");
            m.close();
        }
    }

    /** Nodes retired = nodes freed once idle limbo lists are reclaimed; live bytes = nodes present. */
    private static void checkAccounting(FloeAllocator alloc, Reclamation rec, LockFreeLongMap m,
                                        long present, String kind) {
        rec.reclaimIdle();
        Reclamation.Stats s = rec.stats();
        long heads = kind.equals("list") ? Long.BYTES
                : ((MichaelHashTable) m).bucketCount() * 8;
        long live = alloc.stats().liveBytes();
        if (rec.name().equals("nr")) {
            assertEquals(0, s.freed());
            return;
        }
        assertEquals(0, s.inLimbo(), "idle limbo lists must be empty after reclaimIdle: " + s);
        assertEquals(s.retired(), s.freed(), "every retired node freed exactly once: " + s);
        long nodes = present * HarrisMichaelCore.NODE_BYTES;
        assertTrue(live >= nodes + heads && live <= nodes + heads + 4096,
                "live bytes " + live + " must be the " + present + " nodes present plus the heads (" + heads + ")");
    }
}
