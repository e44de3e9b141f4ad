package dev.floe.reclaim;

/**
 * A safe pointer no longer names a live slice: the slice was deleted (and maybe reused) before or
 * during the access, or the pointer was never valid. Hot paths use the non-throwing forms
 * ({@code readOr}, {@code writeOr}, {@code delete}'s boolean) instead.
 */
public final class DeletedSliceException extends RuntimeException {
    public DeletedSliceException(long ptr) {
        super("slice is deleted or was never valid: " + SafePointer.toString(ptr));
    }
}
