package dev.floe.reclaim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding so the clock word has its cache line to itself. */
abstract class EraClockPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

abstract class EraClockValue extends EraClockPad0 {
    volatile long era = 1;
}

abstract class EraClockPad1 extends EraClockValue {
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/**
 * A global era (epoch) counter: Nova's NovaEra, and the clock of the epoch-style schemes.
 * {@link #advance} is an atomic increment (a full fence), so everything a thread did before it
 * is visible to whoever reads the new value. {@link #version} maps the era onto the 27-bit
 * version space of safe pointers, skipping 0.
 */
public final class EraClock extends EraClockPad1 {
    private static final VarHandle ERA;
    /** The era bits a version keeps: as many as the safe pointer's version field holds. */
    static final long VERSION_MASK = (1L << (Long.SIZE - SafePointer.VERSION_SHIFT)) - 1;

    /** The current era (volatile read). */
    public long current() {
        return era;
    }

    /** Increments the era; returns the new value. */
    public long advance() {
        return (long) ERA.getAndAdd(this, 1L) + 1;
    }

    /**
     * Advances the era from {@code expected} to {@code expected + 1} with one CAS; returns whether
     * this call did it. A failure means the era already moved past {@code expected} (someone else
     * advanced it). Snowflake's epochs use it so that two threads that both saw every participant
     * at {@code expected} advance once.
     * Volatile semantics (a full fence on success, a volatile read on failure).
     */
    public boolean advanceFrom(long expected) {
        return ERA.compareAndSet(this, expected, expected + 1);
    }

    /** The version for slices allocated now: the era modulo 2^27, never 0. */
    int version() {
        return versionOf(era);
    }

    /** The version slices allocated in era {@code e} carry: {@code e} modulo 2^27, never 0. */
    static int versionOf(long e) {
        long v = e & VERSION_MASK;
        return v == 0 ? 1 : (int) v;
    }

    static {
        try {
            ERA = MethodHandles.lookup().findVarHandle(EraClockValue.class, "era", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
