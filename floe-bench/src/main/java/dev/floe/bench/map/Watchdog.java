package dev.floe.bench.map;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounds the time of a timed run, so that an operation that never returns (a livelocked map)
 * fails the trial with the stuck threads' stacks instead of hanging the suite: the body runs on a
 * daemon thread and is abandoned after the limit (the worker JVM then ends with the suite).
 */
final class Watchdog {

    private Watchdog() {}

    /** The limit for a timed run of {@code seconds}: a minute plus ten times the run. */
    static double limitFor(double seconds) {
        return 60 + 10 * seconds;
    }

    /** Runs {@code body}; throws {@link IllegalStateException} naming {@code what} if it takes over {@code limitSeconds}. */
    static <T> T run(Callable<T> body, double limitSeconds, String what) throws Exception {
        FutureTask<T> task = new FutureTask<>(body);
        Thread t = new Thread(task, "floe-bench-watched");
        t.setDaemon(true);
        t.start();
        try {
            return task.get((long) (limitSeconds * 1e3), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception x) throw x;
            if (e.getCause() instanceof Error x) throw x;
            throw e;
        } catch (TimeoutException e) {
            StringBuilder stacks = new StringBuilder();
            for (Map.Entry<Thread, StackTraceElement[]> s : Thread.getAllStackTraces().entrySet()) {
                if (!s.getKey().getName().startsWith("floe-bench")) continue;
                stacks.append("\"").append(s.getKey().getName()).append("\"\n");
                for (StackTraceElement f : s.getValue()) stacks.append("    at ").append(f).append('\n');
            }
            System.err.println("map: " + what + " did not finish within " + limitSeconds + " s; threads:\n" + stacks);
            throw new IllegalStateException(what + " did not finish within " + limitSeconds
                    + " s (an operation never returned; stacks on the worker's standard error)");
        }
    }
}
