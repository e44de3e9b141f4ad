package dev.floe.bench.harness;

/** How big a benchmark run is: {@code --quick} (minutes for everything) or {@code --full} (paper-sized). */
public enum Mode {
    QUICK, FULL;

    /** The lower-case name used on the command line and in the JSON. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
