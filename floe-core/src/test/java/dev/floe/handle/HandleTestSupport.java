package dev.floe.handle;

import dev.floe.memory.FloeAllocator;
import java.util.concurrent.atomic.AtomicInteger;

/** Small allocators for the handle tests. */
final class HandleTestSupport {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private HandleTestSupport() {}

    static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 30).jmx(false)
                .name("handle-test-" + NAMES.incrementAndGet()).build();
    }
}
