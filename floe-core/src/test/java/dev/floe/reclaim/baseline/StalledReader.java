package dev.floe.reclaim.baseline;

import static dev.floe.reclaim.baseline.BaselineTestSupport.await;

import dev.floe.reclaim.Somar;
import java.util.concurrent.CountDownLatch;

/**
 * A thread stalled inside a read: it enters {@code somar.read(ptr, ...)} and waits there, holding
 * whatever protection the scheme gives a read, until {@link #finish} lets it go.
 */
final class StalledReader {
    private final CountDownLatch inside = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final Thread thread;
    private volatile long seen = BaselineTestSupport.FAILED;

    private StalledReader(Somar somar, long ptr) {
        thread = Thread.ofPlatform().name("stalled-reader").start(() -> seen = somar.readOr(ptr, s -> {
            inside.countDown();
            await(release);
            return BaselineTestSupport.owner(s);
        }, BaselineTestSupport.FAILED));
    }

    /** Starts the reader and returns once it is inside the read. */
    static StalledReader enter(Somar somar, long ptr) {
        StalledReader r = new StalledReader(somar, ptr);
        await(r.inside);
        return r;
    }

    /** Lets the reader finish; returns what its read returned. */
    long finish() throws InterruptedException {
        release.countDown();
        thread.join();
        return seen;
    }
}
