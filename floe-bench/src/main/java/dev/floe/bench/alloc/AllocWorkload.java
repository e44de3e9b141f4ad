package dev.floe.bench.alloc;

import dev.floe.bench.harness.Sample;
import dev.floe.bench.harness.Trial;

/** One workload of the alloc suite, measured in the worker JVM of one implementation. */
interface AllocWorkload {

    /** Runs the trial against a fresh allocator of the implementation. */
    Sample measure(AllocImpl impl, Trial trial) throws Exception;
}
