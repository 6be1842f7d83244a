package io.nyala.common.security.authz;

import io.grpc.Context;

/**
 * Who made the RPC being served, as {@link CallerAuthentication} found it: a server of the
 * cluster (its TLS certificate was issued by the trusted CA; {@code name} is the certificate's
 * common name), a user who sent a valid authentication token, or an anonymous caller
 * (docs/architecture.md, "Who may call what").
 *
 * @param kind what the caller proved
 * @param name the server's name from its certificate, or the token's user; empty when anonymous
 * @param address the caller's address as the transport saw it ({@code host:port})
 */
public record Caller(Kind kind, String name, String address) {
  /** What a caller proved about itself. */
  public enum Kind {
    /** Presented a certificate the trusted CA issued. */
    SERVER,
    /** Sent a token the cluster's master signed and that has not expired. */
    USER,
    /** Presented nothing: a client, a tool, or a caller over plaintext. */
    ANONYMOUS
  }

  /** Where {@link CallerAuthentication} puts the caller of the call being served. */
  static final Context.Key<Caller> KEY = Context.key("nyala-caller");

  private static final Caller UNKNOWN = anonymous("unknown address");

  /** A server named {@code name} by its certificate, calling from {@code address}. */
  public static Caller server(String name, String address) {
    return new Caller(Kind.SERVER, name, address);
  }

  /** The user {@code name}, proved by a token, calling from {@code address}. */
  public static Caller user(String name, String address) {
    return new Caller(Kind.USER, name, address);
  }

  /** An anonymous caller from {@code address}. */
  public static Caller anonymous(String address) {
    return new Caller(Kind.ANONYMOUS, "", address);
  }

  /**
   * The caller of the RPC this thread serves; anonymous when the server identifies no callers
   * or outside a call.
   */
  public static Caller current() {
    Caller c = KEY.get();
    return c == null ? UNKNOWN : c;
  }

  /** Whether the caller proved it is a server of the cluster. */
  public boolean isServer() {
    return kind == Kind.SERVER;
  }

  /** As refusals and logs name it: {@code server 'ts-0' at 127.0.0.1:50412}. */
  @Override
  public String toString() {
    return switch (kind) {
      case SERVER -> "server '" + name + "' at " + address;
      case USER -> "user '" + name + "' at " + address;
      case ANONYMOUS -> "anonymous client " + address;
    };
  }
}
