package dev.floe.bench.harness;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Which code produced a report: the Floe version (from a resource Maven fills in at build time)
 * and the git commit of the working directory ({@code git rev-parse HEAD}), when there is one.
 */
public final class BuildInfo {

    /** Written when the version or the commit cannot be found. */
    public static final String UNKNOWN = "unknown";

    private BuildInfo() {}

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        try (InputStream in = BuildInfo.class.getResourceAsStream("/dev/floe/bench/floe-version.properties")) {
            if (in == null) return UNKNOWN;
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", UNKNOWN);
            return v.startsWith("${") ? UNKNOWN : v; // unfiltered: not built by Maven
        } catch (IOException e) {
            return UNKNOWN;
        }
    }

    /** The commit checked out in the current directory, or {@link #UNKNOWN} (no git, no commit yet). */
    public static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroy();
                return UNKNOWN;
            }
            return p.exitValue() == 0 && out.matches("[0-9a-f]{40}") ? out : UNKNOWN;
        } catch (IOException e) {
            return UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return UNKNOWN;
        }
    }
}
