package dev.floe.memory;

/**
 * Run in a child JVM by {@link JfrIdleTest}, with class loading logged: exercises every path that
 * can emit an allocator JFR event (an empty superblock released by {@code trim}, a large
 * allocation and its free) without any recording, then prints what happened.
 */
public final class JfrIdleChildMain {
    private JfrIdleChildMain() {}

    public static void main(String[] args) {
        long sb = 64 << 10;
        try (FloeAllocator a = FloeAllocator.builder().superblockSize(sb).jmx(false).build()) {
            long[] offs = new long[2 * (int) (sb / 64)];
            for (int i = 0; i < offs.length; i++) offs[i] = a.allocate(64);
            for (long off : offs) a.free(off);
            a.trim();
            a.free(a.allocate(100_000));
            System.out.println("releases=" + a.stats().superblockReleases() + " largeRuns=" + a.stats().largeRuns());
        }
    }
}
