package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import picocli.CommandLine.Option;

/**
 * The {@code --masters} option every cluster command shares: comma-separated master RPC
 * addresses, or, when the option is not given, the {@value #ENV} environment variable (which
 * {@code nyala local-cluster} prints an {@code export} line for), so a session types it once.
 */
final class MastersOption {
  /** The environment variable read when {@code --masters} is not given. */
  static final String ENV = io.nyala.client.MasterAddresses.ENV;

  @Option(names = "--masters", paramLabel = "HOST:PORT[,...]",
      description = "Comma-separated master RPC addresses (default: $" + ENV + ").")
  String masters;

  /**
   * The addresses to use: {@code --masters}, else {@value #ENV}.
   *
   * @throws NyalaException INVALID_ARGUMENT naming both when neither is set
   */
  String get() {
    return resolve(masters, System.getenv(ENV));
  }

  static String resolve(String option, String env) {
    if (option != null && !option.isBlank()) {
      return option.trim();
    }
    if (env != null && !env.isBlank()) {
      return env.trim();
    }
    throw NyalaException.invalidArgument("no master address: give --masters HOST:PORT or set %s "
        + "(bin/nyala local-cluster prints the line to export)", ENV);
  }
}
