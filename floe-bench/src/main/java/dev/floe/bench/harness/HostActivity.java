package dev.floe.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How busy the host was while an invocation ran, so that a reader can tell a slow or noisy report
 * from a slow implementation: the wall time, the share of the machine's CPU time that other
 * processes used, and the share the hypervisor gave to other guests ("steal").
 *
 * <p>Sources (Linux): the first line of {@code /proc/stat} ({@code cpu user nice system idle
 * iowait irq softirq steal …}, in clock ticks summed over all cores) and this process's
 * {@code /proc/self/stat} (fields 14–17: {@code utime stime cutime cstime}, the same ticks). The
 * {@code cutime}/{@code cstime} fields count children once they have been reaped, and the JVM reaps
 * every worker it forks when the worker exits; every worker has exited when a suite ends, so at
 * {@link Meter#stop()} the two fields hold all the CPU time of the invocation's worker JVMs. Then,
 * over the invocation:
 * <pre>
 *   total  = Δ(user + nice + system + idle + iowait + irq + softirq + steal)
 *   busy   = Δ(user + nice + system + irq + softirq)
 *   ours   = Δ(utime + stime + cutime + cstime)
 *   other_share = max(0, busy - ours) / total      steal_share = Δsteal / total
 * </pre>
 * Where the files cannot be read (not Linux), both shares are unknown ({@code NaN}, left out of
 * the JSON).
 *
 * @param wallSeconds  seconds from {@link #start()} to {@link Meter#stop()}
 * @param otherShare   share of all cores' time that processes other than this invocation used
 * @param stealShare   share of all cores' time the hypervisor took for other guests
 */
public record HostActivity(double wallSeconds, double otherShare, double stealShare) {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final Path SELF_STAT = Path.of("/proc/self/stat");

    /** A measurement under way, from {@link #start()}. */
    public static final class Meter {
        private final long startNanos = System.nanoTime();
        private final Ticks start = Ticks.read();

        private Meter() {}

        /** The activity since {@link #start()}. */
        public HostActivity stop() {
            double wall = (System.nanoTime() - startNanos) / 1e9;
            Ticks end = Ticks.read();
            if (start == null || end == null) return new HostActivity(wall, Double.NaN, Double.NaN);
            return of(wall, start, end);
        }
    }

    /** Starts measuring. */
    public static Meter start() {
        return new Meter();
    }

    /** The activity between two readings (package-private for tests). */
    static HostActivity of(double wallSeconds, Ticks start, Ticks end) {
        long total = end.total() - start.total();
        if (total <= 0) return new HostActivity(wallSeconds, Double.NaN, Double.NaN);
        long other = Math.max(0, (end.busy() - start.busy()) - (end.ours() - start.ours()));
        return new HostActivity(wallSeconds, (double) other / total, (double) (end.steal() - start.steal()) / total);
    }

    /** One reading of the counters, in clock ticks. */
    record Ticks(long total, long busy, long steal, long ours) {

        /** The counters now, or null where they cannot be read. */
        static Ticks read() {
            try {
                return parse(Files.readAllLines(PROC_STAT).getFirst(), Files.readString(SELF_STAT));
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        /**
         * Parses the {@code cpu} line of {@code /proc/stat} and the text of {@code /proc/self/stat}.
         *
         * @throws IllegalArgumentException if either is not in the kernel's format
         */
        static Ticks parse(String cpuLine, String selfStat) {
            String[] f = cpuLine.trim().split("\\s+");
            if (f.length < 9 || !f[0].equals("cpu")) throw new IllegalArgumentException("not a cpu line: " + cpuLine);
            long user = Long.parseLong(f[1]), nice = Long.parseLong(f[2]), system = Long.parseLong(f[3]);
            long idle = Long.parseLong(f[4]), iowait = Long.parseLong(f[5]), irq = Long.parseLong(f[6]);
            long softirq = Long.parseLong(f[7]), steal = Long.parseLong(f[8]);
            // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
            int close = selfStat.lastIndexOf(')');
            if (close < 0) throw new IllegalArgumentException("not a /proc/<pid>/stat text");
            String[] p = selfStat.substring(close + 1).trim().split("\\s+");
            if (p.length < 15) throw new IllegalArgumentException("too few fields in /proc/<pid>/stat");
            // p[0] is field 3 (state), so field n is p[n - 3]: utime 14, stime 15, cutime 16, cstime 17.
            long ours = Long.parseLong(p[11]) + Long.parseLong(p[12]) + Long.parseLong(p[13]) + Long.parseLong(p[14]);
            long busy = user + nice + system + irq + softirq;
            return new Ticks(busy + idle + iowait + steal, busy, steal, ours);
        }
    }

    /** The {@code host} object of the report; unknown shares are left out. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wall_seconds", Math.round(wallSeconds * 10) / 10.0);
        if (!Double.isNaN(otherShare)) m.put("other_cpu_share", Math.round(otherShare * 1000) / 1000.0);
        if (!Double.isNaN(stealShare)) m.put("steal_share", Math.round(stealShare * 1000) / 1000.0);
        return m;
    }

    /**
     * Share of the machine's CPU time, other processes' and steal together, above which
     * {@link #describe()} calls the host busy: a tenth of two cores is a fifth of one worker
     * thread's core, enough to slow runs and spread ratios visibly.
     */
    public static final double BUSY_SHARE = 0.10;

    /** Whether other processes and the hypervisor took more than {@link #BUSY_SHARE} of the CPU time. */
    public boolean busy() {
        return !Double.isNaN(otherShare) && otherShare + stealShare > BUSY_SHARE;
    }

    /**
     * One line for the console and the report page, e.g. "523 s; other processes 3% of CPU time,
     * steal 2%", with a warning appended when the host was {@link #busy()}.
     */
    public String describe() {
        String s = String.format(Locale.ROOT, "%.0f s", wallSeconds);
        if (Double.isNaN(otherShare)) return s + " (host CPU shares unknown)";
        s += String.format(Locale.ROOT, "; other processes %.0f%% of CPU time, steal %.0f%%",
                otherShare * 100, stealShare * 100);
        return busy() ? s + " (a busy host: runs slower and ratios noisier than on an idle one)" : s;
    }
}
