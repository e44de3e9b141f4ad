package dev.floe.bench.harness;

/**
 * One ratio a suite wants reported for a cell: {@code impl} against {@code vs} on {@code metric}.
 */
public record Comparison(String impl, String vs, Metric metric) {}
