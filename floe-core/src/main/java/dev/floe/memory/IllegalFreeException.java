package dev.floe.memory;

/**
 * {@code free} was given an offset that is not currently allocated: a double free, an offset
 * inside a block, or one that this allocator never handed out. The allocator is left unchanged.
 */
public final class IllegalFreeException extends IllegalArgumentException {
    public IllegalFreeException(String message) {
        super(message);
    }
}
