package dev.floe.bench.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The memory of the measuring process at one moment: resident set size from
 * {@code /proc/self/status} (VmRSS; 0 where that file does not exist), used Java heap from the
 * {@code MemoryMXBean}, and the off-heap committed and live bytes the implementation itself
 * reports (Floe's {@code MemoryStats}; 0 for implementations that have no such counters).
 */
public record MemorySnapshot(long rssBytes, long heapUsedBytes, long offheapCommittedBytes,
                             long offheapLiveBytes) {

    private static final Path STATUS = Path.of("/proc/self/status");

    /** Reads RSS and heap now; the off-heap figures come from the caller. */
    public static MemorySnapshot capture(long offheapCommittedBytes, long offheapLiveBytes) {
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return new MemorySnapshot(currentRss(), heap, offheapCommittedBytes, offheapLiveBytes);
    }

    /** The process's resident set size in bytes (VmRSS), or 0 if it cannot be read. */
    public static long currentRss() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024; // reported in kB
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0; // not Linux, or /proc unavailable: the report shows 0
        }
        return 0;
    }

    /** The {@code memory} object of BENCHMARKS.md. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rss_bytes", rssBytes);
        m.put("heap_used_bytes", heapUsedBytes);
        m.put("offheap_committed_bytes", offheapCommittedBytes);
        m.put("offheap_live_bytes", offheapLiveBytes);
        return m;
    }

    /** Reads back {@link #toJson()}. */
    public static MemorySnapshot fromJson(Map<String, Object> m) {
        return new MemorySnapshot(longOf(m, "rss_bytes"), longOf(m, "heap_used_bytes"),
                longOf(m, "offheap_committed_bytes"), longOf(m, "offheap_live_bytes"));
    }

    private static long longOf(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.longValue() : 0;
    }
}
