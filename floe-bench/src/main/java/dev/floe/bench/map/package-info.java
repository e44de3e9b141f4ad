/**
 * The {@code map} suite: the Oak paper's evaluation of Floe's {@link dev.floe.map.OakMap} at quick
 * or paper-like scale, against {@code ConcurrentSkipListMap} with on-heap values
 * ({@link dev.floe.bench.map.CslmStore}), with values in Nova slices
 * ({@link dev.floe.bench.map.CslmOffHeapStore}) and MapDB's direct-memory B-tree
 * ({@link dev.floe.bench.map.MapDbStore}); {@link dev.floe.bench.map.OakStore} hosts
 * {@code floe-oak} and the no-reclamation baseline. The workloads see every map through
 * {@link dev.floe.bench.map.MapUnderTest}; keys and their order are
 * {@link dev.floe.bench.map.BenchKeys}; {@link dev.floe.bench.map.MapSuite} is the suite.
 */
package dev.floe.bench.map;
