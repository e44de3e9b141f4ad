package dev.floe.memory;

/**
 * The lowest CPU scheduling class for Floe's background threads (the defragmenter), so that they
 * use only CPU time the application's threads leave idle. At normal priority a background thread
 * that wakes up takes the core of a running application thread for a whole scheduler tick (4 ms
 * at 250 Hz) when every core is busy, and a lower nice value does not prevent that: the kernel's
 * wake-up preemption still lets it in. Linux's {@code SCHED_IDLE} policy does: such a thread never
 * preempts a normal one and gets a core only when one is free (or, under a long overload, a tiny
 * share).
 *
 * <p>Linux with native access enabled only (the same condition as a {@link RegionMode#MAPPED}
 * region): elsewhere, or if the call fails, the thread keeps its policy and
 * {@link #lowerCurrentThread} says so.
 */
public final class BackgroundPriority {
    /** Linux's {@code SCHED_IDLE} policy number, as {@code /proc/PID/task/TID/stat} shows it. */
    public static final int SCHED_IDLE = Libc.SCHED_IDLE;

    private BackgroundPriority() {}

    /** Moves the calling thread to {@code SCHED_IDLE}; returns whether it did. */
    public static boolean lowerCurrentThread() {
        if (Region.detectMode() != RegionMode.MAPPED) return false; // no native access, or not Linux
        try {
            return Libc.setCurrentThreadIdlePolicy();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
