package dev.floe.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole JSON document of BENCHMARKS.md: provenance (version, commit, start time, machine)
 * and one {@link SuiteReport} per suite that ran, plus (beyond the contract's keys) how busy the
 * host was meanwhile.
 *
 * @param started when the invocation began, ISO-8601
 * @param host    the host's activity during the invocation (the {@code host} object), or null
 */
public record Report(String floeVersion, String gitCommit, String started, Machine machine,
                     List<SuiteReport> suites, HostActivity host) {

    public Report {
        suites = List.copyOf(suites);
    }

    /** The document as ordered maps and lists, ready for {@link Json}. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("floe_version", floeVersion);
        m.put("git_commit", gitCommit);
        m.put("started", started);
        m.put("machine", machine.toJson());
        m.put("suites", suites.stream().map(SuiteReport::toJson).toList());
        if (host != null) m.put("host", host.toJson());
        return m;
    }

    /**
     * Writes the document to {@code file}, creating its folder. The text goes to
     * {@code file.tmp} first and is then renamed, so a reader never sees half a report.
     */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, Json.pretty(toJson()), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
