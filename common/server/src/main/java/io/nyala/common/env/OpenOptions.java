package io.nyala.common.env;

/**
 * How to open a file. {@code sensitive} marks files holding user data or metadata about it: such
 * a file is encrypted iff the {@link Env} encrypts. The same value must be used for every open
 * of a file; a plain file opened as sensitive fails with a bad-magic error.
 */
public record OpenOptions(boolean sensitive, OpenMode mode) {
  public OpenOptions {
    mode = mode == null ? OpenMode.DEFAULT : mode;
  }

  /** Sensitive, default mode. */
  public static final OpenOptions SENSITIVE = new OpenOptions(true, OpenMode.DEFAULT);

  /** Never encrypted (logs, the instance file, configuration), default mode. */
  public static final OpenOptions NOT_SENSITIVE = new OpenOptions(false, OpenMode.DEFAULT);

  /** The same sensitivity with another mode. */
  public OpenOptions withMode(OpenMode m) {
    return new OpenOptions(sensitive, m);
  }
}
