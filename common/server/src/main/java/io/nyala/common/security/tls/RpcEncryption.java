package io.nyala.common.security.tls;

import io.nyala.common.NyalaException;
import java.util.Locale;

/** Whether a server encrypts its RPC and Raft traffic: Kudu's {@code --rpc_encryption}. */
public enum RpcEncryption {
  /** Plaintext everywhere; the TLS file flags are ignored. */
  DISABLED,
  /**
   * TLS when the three TLS file flags are given, plaintext when none is. A server never mixes
   * the two: until servers negotiate (a later change), this is "required if configured".
   */
  OPTIONAL,
  /** TLS only; refuses to start without the three TLS file flags. */
  REQUIRED;

  /**
   * The mode a flag value names, case-insensitively.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the value and the accepted ones
   */
  public static RpcEncryption parse(String value) {
    try {
      return valueOf(value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("--rpc_encryption=%s: expected disabled, optional or "
          + "required", value);
    }
  }

  /** The flag value, as the command line spells it. */
  public String flagValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
