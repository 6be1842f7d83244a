package io.nyala.minicluster.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;

/**
 * The {@code nyala} command line: local clusters, table tools, load generation, servers.
 *
 * <p>Failures are one line on stderr and a non-zero exit ({@link CliErrors}); a command that
 * talks to a cluster first checks that {@code --masters} names a master ({@link MasterProbe}).
 */
@Command(name = "nyala", mixinStandardHelpOptions = true,
    versionProvider = NyalaCommand.VersionProvider.class,
    description = "Nyala: a Kudu-style distributed storage cluster on the JVM.",
    subcommands = {
        LocalClusterCommand.class,
        PerfCommand.class,
        TableCommand.class,
        ServerCommands.MasterCommand.class,
        ServerCommands.TserverCommand.class,
        ClusterKsckCommand.ClusterCommand.class,
        CertCommands.class,
        UserCommands.class,
        ToolCommands.PbcCommand.class,
        ToolCommands.FsCommand.class,
        ToolCommands.BenchCommand.class,
        CommandLine.HelpCommand.class
    })
public final class NyalaCommand implements Runnable {
  /**
   * Client libraries whose warnings on a failed connection are noise next to the command's own
   * one-line error; quieted while a client command runs, unless {@code --verbose}.
   */
  private static final String[] CLIENT_NOISE = {
      "io.grpc", "io.netty", "io.grpc.netty.shaded.io.netty", "org.apache.ratis"};

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "On failure, print the stack trace too, and keep gRPC's warnings.")
  boolean verbose;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit status (for tests). */
  public static int run(String... args) {
    NyalaCommand app = new NyalaCommand();
    CommandLine cl = new CommandLine(app);
    cl.setExecutionExceptionHandler(CliErrors.onFailure(() -> app.verbose));
    cl.setParameterExceptionHandler(CliErrors.onUsageError(() -> app.verbose));
    cl.setExecutionStrategy(app::execute);
    return cl.execute(args);
  }

  /**
   * Runs the chosen command; while one that talks to a cluster (it takes {@code --masters})
   * runs, the client libraries' warnings are quieted: its failure is the one line
   * {@link CliErrors} prints, not a page of connection warnings before it.
   */
  private int execute(ParseResult parseResult) {
    List<CommandLine> chosen = parseResult.asCommandLineList();
    boolean client = mastersOf(chosen.get(chosen.size() - 1).getCommandSpec()) != null;
    Map<String, Level> levels = client && !verbose ? quietClientLogs() : Map.of();
    try {
      return new CommandLine.RunLast().execute(parseResult);
    } finally {
      levels.forEach(Configurator::setLevel);
    }
  }

  private static MastersOption mastersOf(CommandSpec command) {
    for (CommandSpec mixin : command.mixins().values()) {
      if (mixin.userObject() instanceof MastersOption m) {
        return m;
      }
    }
    return null;
  }

  /** Sets {@link #CLIENT_NOISE} to ERROR; returns the levels to restore (servers may share it). */
  private static Map<String, Level> quietClientLogs() {
    Map<String, Level> before = new HashMap<>();
    for (String name : CLIENT_NOISE) {
      before.put(name, LogManager.getLogger(name).getLevel());
      Configurator.setLevel(name, Level.ERROR);
    }
    return before;
  }

  /** Prints the build version. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"nyala " + io.nyala.common.server.Version.VERSION};
    }
  }
}
