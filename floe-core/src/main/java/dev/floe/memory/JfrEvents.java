package dev.floe.memory;

import jdk.jfr.FlightRecorder;

/**
 * Whether the allocator's JFR events ({@link SuperblockReleaseEvent}, {@link LargeAllocationEvent})
 * are worth creating. Loading a {@code jdk.jfr.Event} subclass starts JFR's Java-side machinery
 * even when nothing records (its eager instrumentation builds the event metadata): measured at
 * about 14 MiB of resident memory (classes, heap, code) in a JVM that never records. No event
 * can be recorded before the flight recorder is initialized (every recording initializes it
 * first: {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}, {@code new Recording()}), so
 * the event classes are touched only after that; a recording started later sees the events from
 * then on.
 */
final class JfrEvents {
    private JfrEvents() {}

    /** True once the flight recorder is initialized (a volatile read); events may then be enabled. */
    static boolean recorderInitialized() {
        return FlightRecorder.isInitialized();
    }
}
