package io.nyala.common.row;

import io.nyala.common.InternalApi;

/**
 * Hides user data (row keys and values) in log lines unless the server runs with
 * {@code --redact=none}. Errors returned to the client that sent the data may show it.
 */
@InternalApi
public final class Redactor {
  private static volatile boolean redact = true;

  private Redactor() {}

  /** Set once from the {@code --redact} flag ("all" or "none"). */
  public static void configure(String mode) {
    redact = !"none".equalsIgnoreCase(mode);
  }

  /**
   * Whether user data is hidden in log lines.
   *
   * @return false only with {@code --redact=none}
   */
  public static boolean enabled() {
    return redact;
  }

  /** The value's text for a log line, or {@code <redacted>}. */
  public static String value(Object v) {
    return redact ? "<redacted>" : String.valueOf(v);
  }
}
