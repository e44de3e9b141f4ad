package dev.floe.bench.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * The JVM's stop-the-world pauses during a measured stretch (JFR's {@code jdk.ExecuteVMOperation}
 * events that ran at a safepoint: GC pauses, deoptimization sweeps, ...), so that a benchmark can
 * tell an operation stalled by the whole JVM from one stalled by what it measures.
 *
 * <p>Times are converted to {@link System#nanoTime()} through one pairing of the two clocks taken
 * at {@link #start}; the conversion error (tens of microseconds) is covered by a slack of
 * {@value #SLACK_NANOS} ns on each side of every pause.
 */
public final class SafepointPauses implements AutoCloseable {
    /** Slack around each pause for the clock conversion. */
    public static final long SLACK_NANOS = 200_000;

    private final RecordingStream stream = new RecordingStream();
    private final long epochNanosAtStart, nanoTimeAtStart;
    /** Pause intervals {start, end} in nanoTime (added by the stream's thread until {@link #close}). */
    private final List<long[]> pauses = new ArrayList<>();

    private SafepointPauses() {
        Instant now = Instant.now();
        nanoTimeAtStart = System.nanoTime();
        epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        stream.enable("jdk.ExecuteVMOperation").withThreshold(Duration.ZERO);
        stream.onEvent("jdk.ExecuteVMOperation", this::record);
        stream.startAsync();
    }

    /** Starts recording pauses. */
    public static SafepointPauses start() {
        return new SafepointPauses();
    }

    private void record(RecordedEvent e) {
        if (!e.getBoolean("safepoint")) return;
        long begin = toNanoTime(e.getStartTime()), end = toNanoTime(e.getEndTime());
        synchronized (pauses) {
            pauses.add(new long[] {begin, end});
        }
    }

    private long toNanoTime(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano() - epochNanosAtStart + nanoTimeAtStart;
    }

    private boolean closed;

    /** Stops recording, after every pause so far was delivered; closing twice is harmless. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        stream.stop(); // waits until the recorded events were processed
        stream.close();
    }

    /** Whether a recorded pause overlaps {@code [from, to]} (nanoTime; call after {@link #close}). */
    public boolean overlaps(long from, long to) {
        synchronized (pauses) {
            for (long[] p : pauses) {
                if (p[0] - SLACK_NANOS <= to && from <= p[1] + SLACK_NANOS) return true;
            }
        }
        return false;
    }

    /** Number of pauses recorded. */
    public int count() {
        synchronized (pauses) {
            return pauses.size();
        }
    }
}
