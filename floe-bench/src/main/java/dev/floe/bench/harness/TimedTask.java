package dev.floe.bench.harness;

/**
 * The work of one thread in a {@link TimedRun}. Only {@link #run} is timed; set-up and
 * tear-down happen before the start and after the memory snapshot.
 */
public interface TimedTask {

    /** Untimed: build the initial state (fill rings, allocate handles). */
    void setUp();

    /**
     * Timed: work until {@code stop} is raised and return the operations completed before it
     * was. Work that must finish after the stop (draining a queue) happens here too, uncounted.
     */
    long run(StopSignal stop);

    /** Untimed, after the memory snapshot: release everything {@link #setUp} and {@link #run} hold. */
    void tearDown();
}
