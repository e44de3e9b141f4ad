package dev.floe.bench.harness;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/** A garbage collector a worker JVM can run under ({@code --gc g1,zgc,parallel}). */
public enum Collector {
    G1("g1", "-XX:+UseG1GC"),
    ZGC("zgc", "-XX:+UseZGC"),
    PARALLEL("parallel", "-XX:+UseParallelGC");

    /** Any {@code -XX:±Use…GC} option: the collector choice a configuration replaces. */
    private static final Pattern CHOICE = Pattern.compile("-XX:[+-]Use[A-Za-z0-9]*GC");

    private final String label;
    private final String flag;

    Collector(String label, String flag) {
        this.label = label;
        this.flag = flag;
    }

    /** The name on the command line and in the JSON, e.g. {@code zgc}. */
    public String label() {
        return label;
    }

    /** The JVM option that selects it. */
    public String flag() {
        return flag;
    }

    /** Whether {@code jvmArg} chooses (or turns off) a collector. */
    static boolean isChoice(String jvmArg) {
        return CHOICE.matcher(jvmArg).matches();
    }

    /** The collector named {@code label} (case-insensitive). */
    public static Collector byLabel(String label) {
        String l = label.trim().toLowerCase(Locale.ROOT);
        for (Collector c : values()) {
            if (c.label.equals(l)) return c;
        }
        throw new IllegalArgumentException("unknown collector '" + label + "'; choose from "
                + String.join(", ", Arrays.stream(values()).map(Collector::label).toList()));
    }
}
