package dev.floe.bench;

import dev.floe.bench.harness.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code floe} command line ({@code ./floe …}). Subcommands: {@code bench} (the benchmarks,
 * {@link BenchCommand}) and {@code help}.
 */
@Command(name = "floe", mixinStandardHelpOptions = true, versionProvider = FloeCli.Version.class,
        description = "Floe: safe off-heap memory for the JVM.",
        subcommands = {BenchCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "The ./floe launcher also takes (not commands of this program):",
                "  ./floe test [maven args]   the whole test suite (mvn verify)",
                "  ./floe build               build only"})
public final class FloeCli implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FloeCli()).execute(args));
    }

    /** Without a subcommand: the usage. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code --version}: the project version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"floe " + BuildInfo.version()};
        }
    }
}
