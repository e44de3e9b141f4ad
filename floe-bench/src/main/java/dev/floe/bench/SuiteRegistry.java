package dev.floe.bench;

import dev.floe.bench.alloc.AllocSuite;
import dev.floe.bench.harness.Suite;

import java.util.List;
import java.util.Optional;

/**
 * The suites that exist, in the order the main job ({@code ./floe bench}) runs them. A new suite
 * is added here with one line.
 */
public final class SuiteRegistry {

    private static final List<Suite> SUITES = List.of(
            new dev.floe.bench.somar.SomarSuite(),
            new dev.floe.bench.map.MapSuite(),
            new AllocSuite(),
            new dev.floe.bench.manual.ManualSuite(),
            new dev.floe.bench.defrag.DefragSuite(),
            new dev.floe.bench.lockfree.LockfreeSuite());

    private SuiteRegistry() {}

    /** Every suite, in run order. */
    public static List<Suite> all() {
        return SUITES;
    }

    /** The suite with this name, if there is one. */
    public static Optional<Suite> find(String name) {
        return SUITES.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The suite names, comma-separated, for error messages. */
    public static String names() {
        return String.join(", ", SUITES.stream().map(Suite::name).toList());
    }
}
