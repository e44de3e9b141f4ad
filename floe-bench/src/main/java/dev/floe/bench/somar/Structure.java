package dev.floe.bench.somar;

/** The two data structures of the Nova paper's section 4.1. */
enum Structure {
    /** Harris-style lock-free ordered linked list (the paper's LL-map). */
    LL("ll"),
    /** {@code ConcurrentSkipListMap} with on-heap keys and off-heap values (the paper's CSLM). */
    SL("sl");

    private final String prefix;

    Structure(String prefix) {
        this.prefix = prefix;
    }

    /** The workload-name prefix, {@code ll} or {@code sl}. */
    String prefix() {
        return prefix;
    }
}
