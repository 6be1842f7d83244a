package io.nyala.common;

import io.nyala.common.proto.HostPortPB;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A host and port, as given on the command line ({@code host:port}).
 *
 * @param host a host name or IP address, not empty
 * @param port a port number, 0 to 65535
 */
public record HostPort(String host, int port) {

  /** Checks the host and port; INVALID_ARGUMENT naming the address when one is bad. */
  public HostPort {
    if (host == null || host.isEmpty()) {
      throw NyalaException.invalidArgument("address has no host: '%s:%d'", host, port);
    }
    if (port < 0 || port > 65535) {
      throw NyalaException.invalidArgument("address %s has port %d out of range", host, port);
    }
  }

  /**
   * Parses {@code host:port}; a missing port takes {@code defaultPort}.
   *
   * @param s the address text
   * @param defaultPort the port when {@code s} has none
   * @return the address
   */
  public static HostPort parse(String s, int defaultPort) {
    String t = s.trim();
    int colon = t.lastIndexOf(':');
    if (colon < 0) {
      return new HostPort(t, defaultPort);
    }
    try {
      return new HostPort(t.substring(0, colon), Integer.parseInt(t.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw NyalaException.invalidArgument("address '%s' has a bad port", s);
    }
  }

  /**
   * Parses a comma-separated list of addresses; blank entries are skipped.
   *
   * @param s the list, or null for none
   * @param defaultPort the port of an entry that has none
   * @return the addresses in the given order
   */
  public static List<HostPort> parseList(String s, int defaultPort) {
    List<HostPort> out = new ArrayList<>();
    if (s == null) {
      return out;
    }
    for (String part : s.split(",")) {
      if (!part.isBlank()) {
        out.add(parse(part, defaultPort));
      }
    }
    return out;
  }

  /**
   * Formats addresses as {@link #parseList} reads them.
   *
   * @param list the addresses
   * @return {@code host:port} entries joined by commas
   */
  public static String toString(List<HostPort> list) {
    StringBuilder sb = new StringBuilder();
    for (HostPort hp : list) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(hp);
    }
    return sb.toString();
  }

  /**
   * This address for a socket; the host is resolved now.
   *
   * @return the socket address
   */
  public InetSocketAddress toSocketAddress() {
    return new InetSocketAddress(host, port);
  }

  /**
   * The wire form.
   *
   * @return the address as a {@code HostPortPB}
   */
  @InternalApi
  public HostPortPB toPb() {
    return HostPortPB.newBuilder().setHost(host).setPort(port).build();
  }

  /**
   * Reads the wire form.
   *
   * @param pb an address on the wire
   * @return the address
   */
  @InternalApi
  public static HostPort fromPb(HostPortPB pb) {
    return new HostPort(pb.getHost(), pb.getPort());
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
