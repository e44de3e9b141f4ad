package dev.floe.handle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.floe.memory.FloeAllocator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Failures in the middle of a handle operation leave nothing behind: a user-supplied
 * {@link HandleService} (the public interface a {@link HandleSpace} accepts) whose allocate or
 * free throws an Error or an undeclared checked exception, and a {@link StackOverflowError} that
 * strikes inside {@link HandleSpace#pin} after its hazard slot was claimed. Until 2026-11-24 the
 * space cleaned up after {@code RuntimeException}s only (and a failing free abandoned the rest of
 * its retire batch); every case here failed.
 */
class HandleFailureTest {

    /** Delegates to an AnchorageHeap; the next allocate throws {@link #failNext} once, if set. */
    static final class FlakyService implements HandleService {
        final AnchorageHeap heap;
        final AtomicReference<Throwable> failNext = new AtomicReference<>();
        final AtomicReference<Throwable> failNextFree = new AtomicReference<>();

        FlakyService(FloeAllocator a) {
            heap = new AnchorageHeap(a);
        }

        @Override public long maxObjectSize() { return heap.maxObjectSize(); }
        @Override public long allocate(long size, int id) {
            Throwable t = failNext.getAndSet(null);
            if (t != null) sneaky(t);
            return heap.allocate(size, id);
        }
        @Override public void free(long offset) {
            Throwable t = failNextFree.getAndSet(null);
            if (t != null) sneaky(t);
            heap.free(offset);
        }
        @Override public long usableSize(long offset) { return heap.usableSize(offset); }
        @Override public long committedBytes() { return heap.committedBytes(); }
        @Override public long liveBytes() { return heap.liveBytes(); }
        @Override public void close() { heap.close(); }
    }

    @SuppressWarnings("unchecked")
    static <T extends Throwable> void sneaky(Throwable t) throws T {
        throw (T) t;
    }

    /** An Error, and a checked exception the service lets out undeclared. */
    static Stream<Throwable> failures() {
        return Stream.of(new StackOverflowError("service"), new java.io.IOException("service"));
    }

    @ParameterizedTest
    @MethodSource("failures")
    void allocateWhoseServiceFailsGivesItsIdBack(Throwable failure) {
        try (FloeAllocator a = HandleTestSupport.allocator()) {
            FlakyService svc = new FlakyService(a);
            HandleSpace space = new HandleSpace(a, svc, 1); // room for one live handle
            svc.failNext.set(failure);
            assertSame(failure, assertThrows(Throwable.class, () -> space.allocate(64)));
            // the failed allocate published nothing: its id must be free again
            long h = space.allocate(64); // failed before: "handle table full: 1 handles live"
            assertTrue(space.isLive(h));
            space.close();
        }
    }

    @Test
    void moveWhoseServiceThrowsAnErrorLeavesTheObjectMovable() {
        try (FloeAllocator a = HandleTestSupport.allocator()) {
            FlakyService svc = new FlakyService(a);
            HandleSpace space = new HandleSpace(a, svc, 16);
            long h = space.allocate(64);
            svc.failNext.set(new OutOfMemoryError("service"));
            assertThrows(OutOfMemoryError.class, () -> space.move(h));
            // nothing pins h: the failed move must have un-marked it, so the next move moves it
            assertEquals(true, space.move(h), "object left marked MOVING by the failed move");
            space.close();
        }
    }

    @Test
    void deferredFreeWhoseServiceFreeThrowsOnceKeepsTheRestOfTheBatch() {
        try (FloeAllocator a = HandleTestSupport.allocator()) {
            FlakyService svc = new FlakyService(a);
            int n = 128; // HandleSpace's retire batch: the 128th free drains the batch
            HandleSpace space = new HandleSpace(a, svc, n);
            long[] hs = new long[n];
            for (int i = 0; i < n; i++) hs[i] = space.allocate(64);
            for (int i = 0; i < n - 1; i++) space.free(hs[i]);
            svc.failNextFree.set(new IllegalStateException("service free failed once"));
            // seals the batch; its drain meets the failing service free, finishes the batch, rethrows
            assertThrows(IllegalStateException.class, () -> space.free(hs[n - 1]));
            space.drainRetired(); // the failure is reported once: later drains do not meet it again
            space.drainRetired();
            // at most the one block whose free failed may be lost; the other 127 ids and blocks go back
            assertTrue(svc.liveBytes() <= 64 * 2, "blocks of freed handles never freed: liveBytes=" + svc.liveBytes());
            for (int i = 0; i < n - 1; i++) space.allocate(64); // failed before: handle table full
            space.close();
        }
    }

    private static HandleSpace deepSpace;
    private static long deepHandle;

    private static void recurse() {
        deepSpace.write(deepHandle, s -> null);
        recurse();
    }

    /** User code calling write deep in a recursion: the overflow may strike inside pin(), after its slot was claimed. */
    @Test
    void aStackOverflowInsideWriteLeavesNoPin() throws Exception {
        try (FloeAllocator a = HandleTestSupport.allocator()) {
            deepSpace = new HandleSpace(a);
            deepHandle = deepSpace.allocate(64);
            for (int trial = 0; trial < 300; trial++) {
                Thread t = new Thread(null, () -> {
                    try {
                        recurse();
                    } catch (StackOverflowError expected) {
                        // the point of the trial
                    }
                }, "deep", (64 << 10) + (trial % 7) * 1024); // varied depth: the overflow strikes at varied points
                t.start();
                t.join();
                assertFalse(deepSpace.isPinned(deepHandle), "pin leaked by a StackOverflowError, trial " + trial);
            }
            deepSpace.close();
        }
    }
}
