package io.nyala.minicluster.cli;

import io.nyala.master.MasterMain;
import io.nyala.tserver.TabletServerMain;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code nyala master ...} and {@code nyala tserver ...}: run one server with Kudu-style flags,
 * or, with the {@code list} subcommand, list the cluster's servers of that kind.
 */
final class ServerCommands {
  private ServerCommands() {}

  @Command(name = "master", description = {"Runs a master; flags as for the master (--help).",
      "'master list --masters A,B,C' lists the masters and their roles."},
      subcommands = ClusterListCommands.MasterListCommand.class)
  static final class MasterCommand implements Runnable {
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public void run() {
      MasterMain.main(args.toArray(String[]::new));
    }
  }

  @Command(name = "tserver", description = {"Runs a tablet server; flags as for it (--help).",
      "'tserver list --masters A' lists the tablet servers the leader master knows."},
      subcommands = ClusterListCommands.TserverListCommand.class)
  static final class TserverCommand implements Runnable {
    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public void run() {
      TabletServerMain.main(args.toArray(String[]::new));
    }
  }
}
