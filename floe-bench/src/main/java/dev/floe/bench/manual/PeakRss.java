package dev.floe.bench.manual;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The process's peak resident set ({@code VmHWM}) over the measured run, on Linux: settle,
 * reset, read.
 *
 * <p>Settling matters for fairness: after the warm-up's {@code System.gc()}, G1 shrinks the heap
 * but gives the pages back to the OS a few tens of milliseconds later (its uncommit runs
 * concurrently). A reset at once counted the warm-up's heap in the next peak, by up to 180 MiB
 * for {@code gc-g1} in one measured case, by luck of timing. {@link #awaitSettled()} waits until
 * the resident set stops falling.
 */
final class PeakRss {
    /** Poll interval and how many polls in a row without a drop count as settled. */
    private static final long POLL_MILLIS = 10;
    private static final int STEADY_POLLS = 5;
    /** Upper bound of the wait (200 polls: 2 s). */
    private static final int MAX_POLLS = 200;

    private PeakRss() {}

    /** Waits until the resident set has not dropped for {@code STEADY_POLLS} polls (at most 2 s). */
    static void awaitSettled() throws InterruptedException {
        long low = current();
        if (low <= 0) return;
        int steady = 0;
        for (int polls = 0; steady < STEADY_POLLS && polls < MAX_POLLS; polls++) {
            Thread.sleep(POLL_MILLIS);
            long now = current();
            if (now < low) {
                low = now;
                steady = 0;
            } else {
                steady++;
            }
        }
    }

    /**
     * Resets the kernel's peak RSS of this process to its current RSS ({@code 5} to
     * {@code /proc/self/clear_refs}, Linux 4.0+), so that the peak covers the measured run and
     * not the warm-up; false where that is not possible (the peak then covers the whole process).
     */
    static boolean reset() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The process's peak resident set size ({@code VmHWM}) in bytes, or 0 where unavailable. */
    static long peak() {
        return statusBytes("VmHWM:");
    }

    /** The process's resident set size ({@code VmRSS}) in bytes, or 0 where unavailable. */
    static long current() {
        return statusBytes("VmRSS:");
    }

    private static long statusBytes(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
