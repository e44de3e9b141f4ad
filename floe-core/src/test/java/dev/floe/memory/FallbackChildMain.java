package dev.floe.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Run in a child JVM by {@link NativeAccessFallbackTest}: builds an allocator with every default
 * (mode AUTO), uses it, and prints the mode it resolved to on the last line of stdout.
 */
public final class FallbackChildMain {
    private FallbackChildMain() {}

    public static void main(String[] args) {
        try (FloeAllocator a = FloeAllocator.create()) {
            long small = a.allocate(100);
            long large = a.allocate(100_000);
            MemorySegment view = a.segment(small);
            view.set(ValueLayout.JAVA_LONG, 0, 42L);
            a.region().setLongPlain(large + a.usableSize(large) - 8, 43L);
            if (view.get(ValueLayout.JAVA_LONG, 0) != 42L
                    || a.region().getLongPlain(large + a.usableSize(large) - 8) != 43L) {
                throw new AssertionError("read back the wrong value");
            }
            a.free(small);
            a.free(large);
            a.trim();
            MemoryStats s = a.stats();
            if (s.liveBytes() != 0 || s.committedBytes() != 0) throw new AssertionError("leak: " + s);
            System.out.println("mode=" + s.mode());
        }
    }
}
