package dev.floe.bench.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A suite's optional restriction to some of its workloads, read from a system property
 * (comma-separated workload names; the CLI has no workload option): for long single-workload
 * runs such as a 5-minute RSS flatness run or a paper-scale run of one workload. The launcher
 * passes {@code FLOE_JAVA_OPTS} on, and workers inherit the property.
 */
public final class WorkloadFilter {

    private WorkloadFilter() {}

    /**
     * The workload names in system property {@code property}, each checked by {@code check}
     * (which throws on an unknown name); null when the property is unset or blank (all workloads).
     *
     * @throws IllegalArgumentException naming the property, for an unknown name or a value that
     *                                  names no workload (such as {@code ","}), which would
     *                                  otherwise run nothing
     */
    public static List<String> selected(String property, Consumer<String> check) {
        String p = System.getProperty(property);
        if (p == null || p.isBlank()) return null;
        List<String> names = new ArrayList<>();
        for (String n : p.split(",")) {
            String name = n.trim();
            if (name.isEmpty()) continue;
            try {
                check.accept(name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("-D" + property + ": " + e.getMessage(), e);
            }
            names.add(name);
        }
        if (names.isEmpty()) throw new IllegalArgumentException("-D" + property + "='" + p + "' names no workload");
        return names;
    }
}
