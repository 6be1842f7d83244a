package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code nyala} command line: local clusters, table tools, load generation, servers. */
@Command(name = "nyala", mixinStandardHelpOptions = true,
    versionProvider = NyalaCli.VersionProvider.class,
    description = "Nyala: a Kudu-style distributed storage cluster on the JVM.",
    subcommands = {
        LocalClusterCommand.class,
        PerfCommand.class,
        TableCommand.class,
        ServerCommands.MasterCommand.class,
        ServerCommands.TserverCommand.class,
        ClusterKsck.ClusterCommand.class,
        ToolCommands.PbcCommand.class,
        ToolCommands.FsCommand.class,
        ToolCommands.BenchCommand.class,
        CommandLine.HelpCommand.class
    })
public final class NyalaCli implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

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
    CommandLine cl = new CommandLine(new NyalaCli());
    cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
      NyalaException ne = NyalaException.from(ex);
      cmd.getErr().println("error: " + ne.getMessage());
      return 1;
    });
    return cl.execute(args);
  }

  /** Prints the build version. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"nyala " + io.nyala.common.server.Version.VERSION};
    }
  }
}
