package dev.floe.bench.harness;

/**
 * One row group of a suite: a workload at a thread count. Every selected implementation runs in
 * every cell, {@code runs} times, interleaved.
 *
 * @param threads   the thread figure reported in the JSON; its exact meaning is the suite's
 *                  (e.g. producer/consumer pairs)
 * @param isolation where its runs execute
 */
public record Cell(String workload, int threads, Isolation isolation) {}
