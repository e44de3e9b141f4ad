package dev.floe.bench.harness;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** The machine a report was measured on: cores, JDK, OS and physical memory. */
public record Machine(int cores, String jdk, String os, long memoryBytes) {

    /** This machine, as the running JVM sees it. */
    public static Machine current() {
        return new Machine(Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                physicalMemoryBytes());
    }

    /** This machine's physical memory in bytes, 0 if the JVM cannot tell. */
    public static long physicalMemoryBytes() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getTotalMemorySize() : 0;
    }

    /** The {@code machine} object of BENCHMARKS.md. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", cores);
        m.put("jdk", jdk);
        m.put("os", os);
        m.put("memory_bytes", memoryBytes);
        return m;
    }
}
