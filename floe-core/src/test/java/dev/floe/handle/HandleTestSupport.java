package dev.floe.handle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.floe.memory.FloeAllocator;
import java.util.concurrent.atomic.AtomicInteger;

/** Small allocators and numbered objects for the handle tests. */
final class HandleTestSupport {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private HandleTestSupport() {}

    static FloeAllocator allocator() {
        return FloeAllocator.builder().regionSize(1L << 30).jmx(false)
                .name("handle-test-" + NAMES.incrementAndGet()).build();
    }

    /** {@code n} new objects of {@code size} bytes, object i holding i in its first word. */
    static long[] numberedObjects(HandleSpace space, int n, int size) {
        long[] all = new long[n];
        for (int i = 0; i < n; i++) {
            all[i] = space.allocate(size);
            long v = i;
            space.write(all[i], s -> {
                s.set(JAVA_LONG, 0, v);
                return null;
            });
        }
        return all;
    }
}
