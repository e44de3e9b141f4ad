package dev.floe.map;

/** Thrown on purpose by the tests' zero-copy writers that must fail after writing (no stack trace). */
final class WriterFailed extends RuntimeException {
    WriterFailed() {
        super("writer failed on purpose", null, false, false);
    }
}
