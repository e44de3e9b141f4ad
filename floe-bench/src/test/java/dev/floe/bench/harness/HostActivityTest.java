package dev.floe.bench.harness;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link HostActivity}: the kernel's counters parsed, the shares computed, this process's own CPU counted as its own. */
class HostActivityTest {

    private static final String SELF = "4242 (java (bench) x) S 1 2 3 0 -1 4194304 10 0 0 0 %d %d %d %d 20 0 30 0 99 1 1";

    private static HostActivity.Ticks ticks(String cpu, long utime, long stime, long cutime, long cstime) {
        return HostActivity.Ticks.parse(cpu, String.format(SELF, utime, stime, cutime, cstime));
    }

    @Test
    void sharesComeFromTheDifferencesOfTheCounters() {
        //                     user nice sys idle iowait irq softirq steal guest guest_nice
        var start = ticks("cpu  1000 0 100 5000 10 0 10 200 0 0", 300, 20, 100, 10);
        var end = ticks("cpu  1800 0 200 5600 10 0 20 400 0 0", 700, 60, 500, 50);
        // total: Δ(900 busy... ) = (1800+200+20) - (1000+100+10) = 910 busy, idle 600, steal 200 -> 1710
        // ours: (700+60+500+50) - (300+20+100+10) = 880; other = 910 - 880 = 30
        HostActivity a = HostActivity.of(60, start, end);
        assertEquals(30.0 / 1710, a.otherShare(), 1e-12);
        assertEquals(200.0 / 1710, a.stealShare(), 1e-12);
        assertEquals(60, a.wallSeconds());
    }

    @Test
    void moreCpuOfOursThanTheHostCountedIsNoNegativeShare() {
        var start = ticks("cpu  1000 0 100 5000 0 0 0 0", 0, 0, 0, 0);
        var end = ticks("cpu  1010 0 100 5090 0 0 0 0", 20, 0, 0, 0);
        assertEquals(0.0, HostActivity.of(1, start, end).otherShare());
    }

    @Test
    void textsNotInTheKernelsFormatAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> HostActivity.Ticks.parse("intr 1 2 3", String.format(SELF, 1, 1, 1, 1)));
        assertThrows(IllegalArgumentException.class, () -> HostActivity.Ticks.parse("cpu  1 2 3 4 5 6 7 8", "4242 java S 1"));
        assertThrows(IllegalArgumentException.class, () -> HostActivity.Ticks.parse("cpu  1 2 3", String.format(SELF, 1, 1, 1, 1)));
    }

    @Test
    void unknownSharesAreLeftOutOfTheJsonAndSaidSoInTheText() {
        HostActivity unknown = new HostActivity(12.34, Double.NaN, Double.NaN);
        assertEquals(java.util.Map.of("wall_seconds", 12.3), unknown.toJson());
        assertEquals("12 s (host CPU shares unknown)", unknown.describe());
        assertEquals("600 s; other processes 3% of CPU time, steal 5%", new HostActivity(600, 0.03, 0.05).describe());
        assertEquals("600 s; other processes 5% of CPU time, steal 13% (a busy host: runs slower and ratios noisier "
                + "than on an idle one)", new HostActivity(600, 0.05, 0.125).describe());
        assertFalse(unknown.busy());
    }

    /**
     * CPU burnt by this JVM and by a child process it has waited for counts as the invocation's
     * own: it must land in {@code ours}, or a busy benchmark would be reported as other load.
     */
    @Test
    void cpuOfThisProcessAndOfItsReapedChildrenIsOurs() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/stat")) && Files.isReadable(Path.of("/proc/self/stat")), "Linux only");
        HostActivity.Ticks before = HostActivity.Ticks.read();
        assertNotNull(before);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuStart = threads.getCurrentThreadCpuTime();
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - cpuStart < 300_000_000L) sink += System.nanoTime() & 1;
        HostActivity.Ticks afterSpin = HostActivity.Ticks.read();
        // 0.3 s of this thread's CPU is 30 ticks at the kernel's 100 per second; allow for rounding.
        assertTrue(afterSpin.ours() - before.ours() >= 20, "own CPU counted: " + (afterSpin.ours() - before.ours()) + sink * 0);

        // A child shell that spins until its own utime + stime (fields 14 and 15 of its stat,
        // read with builtins only) reach 20 ticks, prints them and exits; waitFor reaps it.
        String spin = "while :; do i=0; while [ $i -lt 1000 ]; do i=$((i+1)); done; "
                + "read -r l < /proc/$$/stat; set -- ${l#*) }; t=$(( ${12} + ${13} )); [ $t -ge 20 ] && break; done; echo $t";
        Process child = new ProcessBuilder("sh", "-c", spin).start();
        long childTicks = Long.parseLong(new String(child.getInputStream().readAllBytes()).trim());
        assertEquals(0, child.waitFor());
        HostActivity.Ticks afterChild = HostActivity.Ticks.read();
        assertTrue(childTicks >= 20);
        assertTrue(afterChild.ours() - afterSpin.ours() >= childTicks,
                "a reaped child's " + childTicks + " ticks counted: " + (afterChild.ours() - afterSpin.ours()));
    }
}
