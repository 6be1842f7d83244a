package io.nyala.client;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a client finds the masters when it is not told (the {@value #ENV} variable), and how
 * the addresses it is given are read.
 */
public final class MasterAddresses {
  /** The environment variable holding comma-separated master addresses. */
  public static final String ENV = "NYALA_MASTERS";

  private MasterAddresses() {}

  /**
   * The value of {@value #ENV}, trimmed.
   *
   * @throws NyalaException INVALID_ARGUMENT when it is unset or empty
   */
  public static String fromEnvironment() {
    return orError(System.getenv(ENV));
  }

  static String orError(String value) {
    if (value == null || value.isBlank()) {
      throw NyalaException.invalidArgument("%s is not set: export %s=HOST:PORT[,HOST:PORT...] "
          + "(bin/nyala local-cluster prints the line) or pass the addresses to builder(...)",
          ENV, ENV);
    }
    return value.trim();
  }

  /**
   * The master addresses of {@code addresses}, blank entries skipped.
   *
   * @throws NyalaException INVALID_ARGUMENT when none is left, or for a malformed address
   */
  static List<HostPort> parse(List<String> addresses, int defaultPort) {
    List<HostPort> hps = new ArrayList<>();
    for (String a : addresses) {
      if (!a.isBlank()) {
        hps.add(HostPort.parse(a, defaultPort));
      }
    }
    if (hps.isEmpty()) {
      throw NyalaException.invalidArgument("no master addresses given");
    }
    return hps;
  }
}
