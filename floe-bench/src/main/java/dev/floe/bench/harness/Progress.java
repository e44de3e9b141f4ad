package dev.floe.bench.harness;

import java.io.Console;
import java.io.PrintStream;

/**
 * Reports the progress of a suite run: a redrawn bar on an interactive terminal, plain lines
 * otherwise (CI logs, redirected output). Both write to standard error, so standard output holds
 * only the result tables.
 */
public interface Progress {

    /** A suite starts: {@code steps} runs in all, expected to take about {@code estimateSeconds}. */
    void begin(String suite, int steps, double estimateSeconds);

    /** A run starts. */
    void stepStarted(String label);

    /** A run finished with a one-line outcome. */
    void stepDone(String label, String outcome);

    /** The suite finished. */
    void end();

    /**
     * The bar when standard error is likely an interactive terminal, lines otherwise. Since
     * JDK 22 {@link System#console()} exists even when output is redirected, so
     * {@link Console#isTerminal()} decides.
     */
    static Progress forConsole() {
        Console c = System.console();
        return c != null && c.isTerminal() ? new TerminalProgress(System.err) : new LineProgress(System.err);
    }

    /** Progress that prints nothing (tests). */
    static Progress silent() {
        return new Progress() {
            @Override public void begin(String suite, int steps, double estimateSeconds) {}
            @Override public void stepStarted(String label) {}
            @Override public void stepDone(String label, String outcome) {}
            @Override public void end() {}
        };
    }

    /** Minutes and seconds, e.g. {@code 1m05s} or {@code 12s}. */
    static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }

    /** Prints the start line both styles share. */
    static void announce(PrintStream out, String suite, int steps, double estimateSeconds) {
        out.printf("%s: %d runs, about %s%n", suite, steps, duration(estimateSeconds));
    }
}
