package dev.floe.map;

import java.util.ConcurrentModificationException;

/**
 * Reading through an {@link OakReadBuffer} whose key was removed from the map since the buffer was
 * obtained (the off-heap bytes may already hold something else; the read was discarded), or
 * whose value moved away from memory that was reused since, which the buffer cannot tell from a
 * removal: a fresh {@code get} of the key answers which (see {@link OakReadBuffer}).
 */
public final class RemovedValueException extends ConcurrentModificationException {
    public RemovedValueException(String message) {
        super(message);
    }
}
