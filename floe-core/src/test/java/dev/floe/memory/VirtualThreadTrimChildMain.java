package dev.floe.memory;

import java.util.concurrent.TimeUnit;

/**
 * Run in a child JVM with one virtual-thread carrier by {@link VirtualThreadsTest}: a virtual
 * thread that holds a cache stripe blocks on the region's monitor (held here by the main thread,
 * standing for any thread inside a synchronized {@link ChunkedRegion} method, such as a
 * {@code stats()} call or a chunk commit), and a second virtual thread calls {@code trim()}.
 * Prints {@code trim finished} if both complete, {@code stuck} otherwise. With
 * {@code -Dfloe.test.interruptedTrimmer=true} the trimmer is interrupted before it calls
 * {@code trim()} (an interrupted thread's park returns at once), and {@code interrupt kept} says
 * that it still is afterwards.
 */
public final class VirtualThreadTrimChildMain {
    private VirtualThreadTrimChildMain() {}

    public static void main(String[] args) throws Exception {
        FloeAllocator a = FloeAllocator.builder().regionSize(1L << 30).mode(RegionMode.ARENA_CHUNKS)
                .cacheStripes(1).jmx(false).name("vt-trim").build();
        Region region = a.region();
        Thread allocator;
        Thread trimmer;
        synchronized (region) {
            // a fresh class: the stripe is claimed, then carve() commits a chunk (synchronized on region)
            allocator = Thread.ofVirtual().name("vt-allocate").start(() -> a.allocate(100));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (allocator.getState() != Thread.State.BLOCKED && System.nanoTime() < until) Thread.sleep(1);
            System.out.println("allocator state while the region's monitor is held: " + allocator.getState());
            boolean interrupted = Boolean.getBoolean("floe.test.interruptedTrimmer");
            trimmer = Thread.ofVirtual().name("vt-trim").start(() -> {
                if (interrupted) Thread.currentThread().interrupt();
                a.trim();
                if (interrupted && Thread.currentThread().isInterrupted()) System.out.println("interrupt kept");
            });
            Thread.sleep(200);
        }
        allocator.join(30_000); // generous: a loaded host schedules the virtual threads late; a deadlock stays stuck
        trimmer.join(10_000);
        boolean stuck = allocator.isAlive() || trimmer.isAlive();
        System.out.println(stuck ? "stuck: allocate alive=" + allocator.isAlive() + ", trim alive="
                + trimmer.isAlive() : "trim finished");
        System.out.flush();
        if (!stuck) a.close();
        Runtime.getRuntime().halt(stuck ? 3 : 0);
    }
}
