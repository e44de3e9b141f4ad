/**
 * The {@code floe} command line and its benchmark suites.
 *
 * <p>{@link dev.floe.bench.FloeCli} is the entry point of {@code ./floe};
 * {@link dev.floe.bench.BenchCommand} implements {@code floe bench [SUITE] [options]} as fixed in
 * BENCHMARKS.md; {@link dev.floe.bench.SuiteRegistry} lists the suites. The reusable machinery
 * (scheduling, worker JVMs, statistics, JSON, console tables) is in
 * {@link dev.floe.bench.harness}; each suite lives in a package of its own, such as
 * {@link dev.floe.bench.alloc}.
 */
package dev.floe.bench;
