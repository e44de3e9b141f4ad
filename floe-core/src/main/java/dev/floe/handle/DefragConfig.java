package dev.floe.handle;

import java.time.Duration;

/**
 * Parameters of ANCHORAGE's control loop ({@link Anchorage}), defaults from the paper (section
 * 4.3): fragmentation bounds {@code [F_lb, F_ub] = [1.05, 1.4]}, overhead bound
 * {@code O_ub = 5%}, aggression {@code alpha = 10%} of live bytes per pass, a check every
 * 500 ms while waiting.
 *
 * @param fragmentationLow  F_lb: defragmenting stops below this (committed / live bytes)
 * @param fragmentationHigh F_ub: defragmenting starts above this
 * @param overheadBound     O_ub: after a pass of T_pass, sleep T_pass / O_ub (so passes take at
 *                          most this fraction of one core's time)
 * @param aggression        alpha: a pass moves at most this fraction of the live bytes
 * @param wakeInterval      how often the waiting state measures fragmentation
 * @param moveEverything    test mode: every pass moves every unpinned object (to fresh chunks),
 *                          whatever the fragmentation; bounds and alpha are ignored
 * @param lowPriority       the service thread runs in the lowest CPU scheduling class (Linux
 *                          {@code SCHED_IDLE}, {@link dev.floe.memory.BackgroundPriority}), so that
 *                          it uses only CPU time the application leaves idle and never preempts
 *                          an application thread (default; not part of the paper, whose passes
 *                          stop the application anyway)
 */
public record DefragConfig(double fragmentationLow, double fragmentationHigh, double overheadBound,
                           double aggression, Duration wakeInterval, boolean moveEverything,
                           boolean lowPriority) {

    /** The paper's defaults, with the service thread in the idle scheduling class. */
    public static final DefragConfig DEFAULTS =
            new DefragConfig(1.05, 1.4, 0.05, 0.10, Duration.ofMillis(500), false, true);

    /** Checks the parameters; see the record description for their ranges. */
    public DefragConfig {
        if (!(fragmentationLow >= 1.0) || !(fragmentationHigh >= fragmentationLow)) {
            throw new IllegalArgumentException("need 1 <= F_lb <= F_ub: " + fragmentationLow + ", " + fragmentationHigh);
        }
        if (!(overheadBound > 0 && overheadBound <= 1)) {
            throw new IllegalArgumentException("O_ub must be in (0, 1]: " + overheadBound);
        }
        if (!(aggression > 0 && aggression <= 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1]: " + aggression);
        }
        if (wakeInterval == null || wakeInterval.isNegative() || wakeInterval.isZero()) {
            throw new IllegalArgumentException("wake interval must be positive: " + wakeInterval);
        }
    }

    /** This configuration with another {@code wakeInterval} (must be positive). */
    public DefragConfig withWakeInterval(Duration d) {
        return new DefragConfig(fragmentationLow, fragmentationHigh, overheadBound, aggression, d, moveEverything, lowPriority);
    }

    /** This configuration with {@code moveEverything} set (test mode: move every unpinned object per pass). */
    public DefragConfig withMoveEverything(boolean all) {
        return new DefragConfig(fragmentationLow, fragmentationHigh, overheadBound, aggression, wakeInterval, all, lowPriority);
    }

    /** This configuration with other fragmentation bounds {@code [F_lb, F_ub]} (need {@code 1 <= low <= high}). */
    public DefragConfig withBounds(double low, double high) {
        return new DefragConfig(low, high, overheadBound, aggression, wakeInterval, moveEverything, lowPriority);
    }

    /** This configuration with another aggression {@code alpha} (in {@code (0, 1]}). */
    public DefragConfig withAggression(double alpha) {
        return new DefragConfig(fragmentationLow, fragmentationHigh, overheadBound, alpha, wakeInterval, moveEverything, lowPriority);
    }

    /** This configuration with another overhead bound {@code O_ub} (in {@code (0, 1]}). */
    public DefragConfig withOverheadBound(double oUb) {
        return new DefragConfig(fragmentationLow, fragmentationHigh, oUb, aggression, wakeInterval, moveEverything, lowPriority);
    }

    /** This configuration with the service thread in the idle scheduling class or not. */
    public DefragConfig withLowPriority(boolean low) {
        return new DefragConfig(fragmentationLow, fragmentationHigh, overheadBound, aggression, wakeInterval, moveEverything, low);
    }
}
