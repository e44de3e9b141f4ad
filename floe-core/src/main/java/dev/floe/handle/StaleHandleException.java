package dev.floe.handle;

/**
 * The handle names no live object: it was freed (and perhaps its id reused), it was never made by
 * this {@link HandleSpace}, or it is {@link Handle#NULL}. Nothing was read or written.
 */
public final class StaleHandleException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    StaleHandleException(long handle, String why) {
        super(Handle.toString(handle) + " " + why);
    }
}
