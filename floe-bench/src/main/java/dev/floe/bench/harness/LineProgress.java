package dev.floe.bench.harness;

import java.io.PrintStream;

/** {@link Progress} as one plain line per finished run, for logs and redirected output. */
final class LineProgress extends CountingProgress {

    LineProgress(PrintStream out) {
        super(out);
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
