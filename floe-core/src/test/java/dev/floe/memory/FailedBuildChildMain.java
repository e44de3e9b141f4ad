package dev.floe.memory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a child JVM with a small heap by {@link AllocatorApiEdgeCaseTest}: builds a mapped
 * allocator whose superblock directory cannot fit that heap, so the build fails after the region
 * was reserved, and prints the process's virtual size before and after ({@code vmsize=BEFORE,AFTER}
 * in KiB) and what the build threw.
 */
public final class FailedBuildChildMain {
    private FailedBuildChildMain() {}

    public static void main(String[] args) throws IOException {
        long before = vmSizeKib();
        String thrown = "nothing";
        try (FloeAllocator a = FloeAllocator.builder().mode(RegionMode.MAPPED).regionSize(1L << 42)
                .superblockSize(64 << 10).jmx(false).build()) {
            a.allocate(8);
        } catch (OutOfMemoryError e) {
            thrown = "OutOfMemoryError";
        }
        System.out.println("thrown=" + thrown);
        System.out.println("vmsize=" + before + "," + vmSizeKib());
    }

    private static long vmSizeKib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmSize:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        throw new IllegalStateException("no VmSize in /proc/self/status");
    }
}
