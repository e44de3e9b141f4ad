package dev.floe.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ./floe --help} lists what the launcher takes, not only the program's own commands. */
class FloeCliTest {

    @Test
    void theUsageNamesTheLauncherOnlyCommands() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new FloeCli());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));
        assertEquals(0, cli.execute("--help"));
        String usage = out.toString();
        assertTrue(usage.contains("bench") && usage.contains("./floe test") && usage.contains("./floe build"), usage);
    }
}
