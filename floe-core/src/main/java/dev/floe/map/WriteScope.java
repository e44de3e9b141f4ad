package dev.floe.map;

/**
 * One locked value while a writer runs: the slice it holds (following moves), the hazard slot
 * that keeps the slice from being freed, and the lock word it installed. Mutable, used by one
 * thread for one operation.
 */
final class WriteScope {
    /** The value slice (updated when {@link ValueSlices#lock} follows a move). */
    long ptr;
    /** Hazard slot protecting {@link #ptr} while locked. */
    int slot;
    /** The lock word installed (L set). */
    long lockWord;
    /**
     * Whether this thread still holds the lock: set by {@link ValueSlices#lock}, cleared by the
     * unlock, remove or move that releases it (so a failure can tell whether to unlock).
     */
    boolean held;

    WriteScope(long ptr) {
        this.ptr = ptr;
    }
}
