package dev.floe.bench.harness;

import java.io.PrintStream;

/**
 * What both {@link Progress} styles keep: where they print, the suite, its number of runs and how
 * many have finished; {@link #begin} resets the count and prints the start line.
 */
abstract class CountingProgress implements Progress {

    final PrintStream out;
    String suite;
    int steps;
    int done;

    CountingProgress(PrintStream out) {
        this.out = out;
    }

    @Override
    public void begin(String suite, int steps, double estimateSeconds) {
        this.suite = suite;
        this.steps = steps;
        this.done = 0;
        Progress.announce(out, suite, steps, estimateSeconds);
    }
}
