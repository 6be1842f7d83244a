package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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

  @Option(names = "--connect-timeout-ms", paramLabel = "MS",
      defaultValue = "" + MasterProbe.DEFAULT_TIMEOUT_MS,
      description = "How long to wait for a first answer from any master before giving up "
          + "(default ${DEFAULT-VALUE}); the command's own operations keep their timeouts.")
  long connectTimeoutMs;

  /** The command the option is mixed into, for usage errors that name it. */
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  /** The addresses once a master among them has answered; null before. */
  private String checked;

  /**
   * The addresses to use: {@code --masters}, else {@value #ENV}. The first call also checks
   * that one of them is a master that answers within {@code --connect-timeout-ms} (see
   * {@link MasterProbe}), so that every cluster command fails fast, and says what the address
   * is, when it is wrong; commands call this after checking their own options.
   *
   * @throws NyalaException INVALID_ARGUMENT naming both when neither is set; SERVICE_UNAVAILABLE
   *     saying what the addresses are when no master answers
   */
  String get() {
    if (checked == null) {
      String addrs = resolve(masters, System.getenv(ENV));
      if (mixee != null) {
        CliErrors.requireAtLeast(mixee, "--connect-timeout-ms", connectTimeoutMs, 1);
      }
      MasterProbe.check(addrs, Math.max(1, connectTimeoutMs));
      checked = addrs;
    }
    return checked;
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
