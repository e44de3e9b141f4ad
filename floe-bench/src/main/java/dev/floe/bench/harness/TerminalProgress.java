package dev.floe.bench.harness;

import java.io.PrintStream;

/**
 * {@link Progress} as one line redrawn in place: a bar, the count of runs, an estimate of the
 * time left from the pace so far, and the run in progress. The line stays within 79 columns:
 * a longer one would wrap, and a carriage return cannot redraw a wrapped line.
 */
final class TerminalProgress extends CountingProgress {

    private static final int BAR = 20;
    private static final int WIDTH = 79;

    private long startNanos;
    private double estimateSeconds;

    TerminalProgress(PrintStream out) {
        super(out);
    }

    @Override
    public void begin(String suite, int steps, double estimateSeconds) {
        this.estimateSeconds = estimateSeconds;
        this.startNanos = System.nanoTime();
        super.begin(suite, steps, estimateSeconds);
    }

    @Override
    public void stepStarted(String label) {
        draw(label);
    }

    @Override
    public void stepDone(String label, String outcome) {
        done++;
        draw(label);
    }

    @Override
    public void end() {
        out.print("\r" + " ".repeat(WIDTH) + "\r");
        out.printf("%s: %d runs in %s%n", suite, done, Progress.duration(elapsed()));
        out.flush();
    }

    private void draw(String label) {
        int filled = steps == 0 ? BAR : done * BAR / steps;
        double left = done == 0 ? estimateSeconds : elapsed() / done * (steps - done);
        String line = String.format("[%s%s] %d/%d %s left  %s", "#".repeat(filled), ".".repeat(BAR - filled),
                done, steps, Progress.duration(left), label);
        if (line.length() > WIDTH) line = line.substring(0, WIDTH);
        out.print("\r" + line + " ".repeat(WIDTH - line.length()));
        out.flush();
    }

    private double elapsed() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
