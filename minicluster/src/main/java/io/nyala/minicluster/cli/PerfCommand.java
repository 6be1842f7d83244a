package io.nyala.minicluster.cli;

import picocli.CommandLine.Command;

/** {@code nyala perf ...}: load drivers. */
@Command(name = "perf", mixinStandardHelpOptions = true, description = "Load drivers.",
    subcommands = {LoadgenCommand.class, ScanCommand.class})
final class PerfCommand implements Runnable {
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
