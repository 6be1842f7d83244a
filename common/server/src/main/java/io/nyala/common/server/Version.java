package io.nyala.common.server;

/** The build's version string. */
public final class Version {
  public static final String VERSION = "0.1.0-SNAPSHOT";

  private Version() {}
}
