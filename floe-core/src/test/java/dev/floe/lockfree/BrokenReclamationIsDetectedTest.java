package dev.floe.lockfree;

import dev.floe.memory.FloeAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The safety checks can fail: a scheme that frees a node the moment it is unlinked (no warning,
 * no hazard pointers, so readers and CASes meet reused blocks) must be caught by the incarnation
 * stamps, the history check, an allocator refusal, or an operation that never returns (reused
 * nodes linked into a cycle) within a few seconds of churn. This is what
 * makes the zero-violation results of {@link LockFreeStressTest} mean something.
 */
class BrokenReclamationIsDetectedTest {

    /** Frees at retire, never warns, never protects: what OA would be without its warnings. */
    static final class FreeAtOnce extends LockstepScheme {
        FreeAtOnce(FloeAllocator alloc) {
            super(alloc);
        }

        @Override
        public String name() {
            return "broken-free-at-once";
        }

        @Override
        Participant enter() {
            return participants.acquire(); // real threads: one participant each
        }

        @Override
        void exit(Participant p) {
            participants.release(p);
        }

        @Override
        void retire(Participant p, long node) {
            allocator.free(node);
        }
    }

    @Test
    void freeingWithoutWarningsIsCaught() throws Exception {
        boolean caught = false;
        String how = "";
        for (int round = 0; round < 10 && !caught; round++) {
            FloeAllocator alloc = Schemes.allocator();
            HarrisMichaelList list = new HarrisMichaelList(new FreeAtOnce(alloc));
            ConcurrentHistoryChecker h = new ConcurrentHistoryChecker(list, 8, 4);
            boolean returned = h.run(400, false, 2_000);
            if (!returned) {
                caught = true; // reused nodes linked into a cycle: a walk never ends
                how = "an operation never returned (the list became a cycle)";
                alloc.close(); // the stuck walks' next access fails, ending them
                h.awaitWorkers(5_000);
                break;
            }
            if (h.failure() != null) {
                caught = true;
                how = "worker failed: " + h.failure();
            } else {
                // checked on a daemon thread: walking a corrupted list may never end
                var check = new java.util.concurrent.FutureTask<>(h::violations);
                Thread.ofPlatform().daemon().start(check);
                try {
                    var v = check.get(10, java.util.concurrent.TimeUnit.SECONDS);
                    caught = !v.isEmpty();
                    how = v.toString();
                } catch (java.util.concurrent.TimeoutException e) {
                    caught = true;
                    how = "checking the final state never returned (the list became a cycle)";
                } catch (java.util.concurrent.ExecutionException e) {
                    caught = true; // a corrupted list may throw
                    how = e.getCause().toString();
                }
            }
            // the list may be corrupt (cycles): do not walk it to close; the allocator goes
            alloc.close();
        }
        assertTrue(caught, "a scheme that frees at once went undetected");
        System.out.println("broken scheme detected: " + how.substring(0, Math.min(200, how.length())));
    }
}
