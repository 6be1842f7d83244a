package io.nyala.common.security.authz;

import io.nyala.common.NyalaException;
import java.util.Locale;

/**
 * Whether a server checks who calls it: Kudu's {@code --rpc_authentication}. A caller proves it
 * is a server of the cluster with a certificate of the trusted CA on its TLS connection; clients
 * will prove who they are with a token from the master (not yet: docs/architecture.md, "Who may
 * call what").
 */
public enum RpcAuthentication {
  /** No checks: any caller may call any method. */
  DISABLED,
  /**
   * Callers are identified (a certificate presented makes a server identity) but nothing is
   * refused: the step between the other two while a cluster's callers get certificates.
   */
  OPTIONAL,
  /** The methods {@link RpcPolicy} reserves for servers refuse every other caller. */
  REQUIRED;

  /**
   * The mode a flag value names, case-insensitively.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the value and the accepted ones
   */
  public static RpcAuthentication parse(String value) {
    try {
      return valueOf(String.valueOf(value).strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("--rpc_authentication=%s: expected disabled, optional "
          + "or required", value);
    }
  }

  /**
   * The mode of a server's flags, checked against its TLS.
   *
   * @param value {@code --rpc_authentication}
   * @param tls whether the server speaks TLS ({@code --rpc_encryption} and its files)
   * @throws NyalaException INVALID_ARGUMENT for an unknown value, or {@code required} without
   *     TLS: a caller can prove it is a server only with a certificate on a TLS connection
   */
  public static RpcAuthentication fromFlags(String value, boolean tls) {
    RpcAuthentication mode = parse(value);
    if (mode == REQUIRED && !tls) {
      throw NyalaException.invalidArgument("--rpc_authentication=required needs TLS: set "
          + "--rpc_encryption=required with --tls_cert_file, --tls_key_file and "
          + "--trusted_ca_file; without it no caller can prove it is a server of the cluster");
    }
    return mode;
  }

  /** The flag value, as the command line spells it. */
  public String flagValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
