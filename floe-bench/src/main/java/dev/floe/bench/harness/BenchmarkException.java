package dev.floe.bench.harness;

/** A run could not be completed: a worker JVM failed to start, crashed, or its workload threw. */
public final class BenchmarkException extends Exception {

    public BenchmarkException(String message) {
        super(message);
    }

    public BenchmarkException(String message, Throwable cause) {
        super(message, cause);
    }
}
