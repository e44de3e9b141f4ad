package dev.floe.bench.harness;

import java.io.PrintStream;

/** {@link Progress} as one plain line per finished run, for logs and redirected output. */
final class LineProgress implements Progress {

    private final PrintStream out;
    private String suite;
    private int steps;
    private int done;

    LineProgress(PrintStream out) {
        this.out = out;
    }

    @Override
    public void begin(String suite, int steps, double estimateSeconds) {
        this.suite = suite;
        this.steps = steps;
        this.done = 0;
        Progress.announce(out, suite, steps, estimateSeconds);
    }

    @Override
    public void stepStarted(String label) {
        // one line per finished run is enough for a log
    }

    @Override
    public void stepDone(String label, String outcome) {
        done++;
        out.printf("%s [%d/%d] %s: %s%n", suite, done, steps, label, outcome);
        out.flush();
    }

    @Override
    public void end() {
        out.flush();
    }
}
