package dev.floe.bench.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The JVM's stop-the-world pauses during a measured stretch (JFR's {@code jdk.ExecuteVMOperation}
 * events that ran at a safepoint: GC pauses, deoptimization sweeps, ...), so that a benchmark can
 * tell an operation stalled by the whole JVM from one stalled by what it measures.
 *
 * <p>A plain JFR recording of that one event type, read from its file after {@link #close}: no
 * thread parses events while the measurement runs (a {@code RecordingStream}'s reader wakes about
 * every millisecond, which on two cores delays the very threads being measured). Times are
 * converted to {@link System#nanoTime()} through one pairing of the two clocks taken at
 * {@link #start}; the conversion error (tens of microseconds) is covered by a slack of
 * {@value #SLACK_NANOS} ns on each side of every pause.
 */
public final class SafepointPauses implements AutoCloseable {
    /** Slack around each pause for the clock conversion. */
    public static final long SLACK_NANOS = 200_000;
    private static final String EVENT = "jdk.ExecuteVMOperation";

    private final Recording recording = new Recording();
    private final long epochNanosAtStart, nanoTimeAtStart;
    /** Pause intervals {start, end} in nanoTime, read at {@link #close}. */
    private final List<long[]> pauses = new ArrayList<>();
    private boolean closed;

    private SafepointPauses() {
        recording.enable(EVENT).withThreshold(Duration.ZERO);
        recording.setToDisk(true);
        Instant now = Instant.now();
        nanoTimeAtStart = System.nanoTime();
        epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        recording.start();
    }

    /** Starts recording pauses. */
    public static SafepointPauses start() {
        return new SafepointPauses();
    }

    private long toNanoTime(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano() - epochNanosAtStart + nanoTimeAtStart;
    }

    /** Stops recording and reads the pauses; closing twice is harmless. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        recording.stop();
        Path file = null;
        try {
            file = Files.createTempFile("floe-safepoints", ".jfr");
            recording.dump(file);
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                if (!e.getEventType().getName().equals(EVENT)) continue; // the file also holds JFR's own events
                if (e.getBoolean("safepoint")) pauses.add(new long[] {toNanoTime(e.getStartTime()), toNanoTime(e.getEndTime())});
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the JFR recording of safepoint pauses", e);
        } finally {
            recording.close();
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temporary file left behind; nothing to report
                }
            }
        }
    }

    /** Whether a recorded pause overlaps {@code [from, to]} (nanoTime; call after {@link #close}). */
    public boolean overlaps(long from, long to) {
        for (long[] p : pauses) {
            if (p[0] - SLACK_NANOS <= to && from <= p[1] + SLACK_NANOS) return true;
        }
        return false;
    }

    /** Number of pauses recorded (after {@link #close}). */
    public int count() {
        return pauses.size();
    }
}
