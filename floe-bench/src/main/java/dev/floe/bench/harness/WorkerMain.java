package dev.floe.bench.harness;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Entry point of a worker JVM. Usage: {@code WorkerMain <suite class name>}.
 *
 * <p>Protocol (line-based, UTF-8): the parent writes one {@link Trial} as a JSON line to standard
 * input; the worker runs it with {@link Suite#measure} and answers with one line on standard
 * output, {@value WorkerProcess#SAMPLE} followed by the {@link Sample} as JSON, or
 * {@value WorkerProcess#ERROR} followed by a one-line description. End of input ends the worker.
 * Anything else a library might print is sent to standard error instead, so the answer channel
 * carries nothing but answers.
 */
public final class WorkerMain {

    private WorkerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: WorkerMain <suite class>");
            System.exit(2);
        }
        Suite suite = (Suite) Class.forName(args[0]).getConstructor().newInstance();
        PrintStream answers = System.out;
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) continue;
            String answer;
            try {
                Sample sample = suite.measure(Trial.fromJson(Json.parseObject(line)));
                answer = WorkerProcess.SAMPLE + Json.compact(sample.toJson());
            } catch (Throwable t) {
                t.printStackTrace();
                answer = WorkerProcess.ERROR + describe(t);
            }
            answers.println(answer);
            answers.flush();
        }
    }

    private static String describe(Throwable t) {
        StringBuilder b = new StringBuilder(String.valueOf(t));
        StackTraceElement[] frames = t.getStackTrace();
        for (int i = 0; i < Math.min(3, frames.length); i++) b.append(" at ").append(frames[i]);
        return b.toString().replace('\n', ' ');
    }
}
