package dev.floe.memory;

/** A system call on the region failed ({@code mmap}, {@code madvise}, …); carries {@code errno}. */
public final class NativeMemoryException extends RuntimeException {
    private final int errno;

    public NativeMemoryException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** The C {@code errno} the call reported. */
    public int errno() {
        return errno;
    }
}
