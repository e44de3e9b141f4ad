package dev.floe.bench.harness;

/**
 * One implementation of a suite in one {@link JvmConfig}: what the runner schedules, with a
 * worker JVM of its own. Its label names it in results and ratios: the implementation's name
 * alone when the run has one configuration, else the name, {@code @} and the parts of the
 * configuration that vary, e.g. {@code floe-nova@zgc} or {@code cslm@heap=512m}.
 *
 * @param label the name in results and ratios
 * @param impl  the suite's implementation
 * @param jvm   the configuration of its worker JVMs
 */
public record Variant(String label, String impl, JvmConfig jvm) {

    /** The implementation in the suite's own configuration, under its own name. */
    public static Variant of(String impl) {
        return new Variant(impl, impl, JvmConfig.DEFAULT);
    }
}
