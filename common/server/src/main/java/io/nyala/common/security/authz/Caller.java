package io.nyala.common.security.authz;

import io.grpc.Context;
import java.util.regex.Pattern;

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
  /** How a certificate of the master's CA names its server: its uuid, 32 hex digits. */
  private static final Pattern SERVER_UUID = Pattern.compile("[0-9a-f]{32}");

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

  /**
   * Whether this caller is a server whose certificate names a server other than {@code uuid}.
   * A certificate the master's CA issued names its server by uuid ({@code CN=<uuid>}), which
   * every claim the server makes must match (docs/architecture.md, "Who may call what"); an
   * operator's certificate names a host or a name, not a uuid, and cannot be checked: false.
   */
  public boolean contradicts(String uuid) {
    return kind == Kind.SERVER && SERVER_UUID.matcher(name).matches() && !name.equals(uuid);
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
