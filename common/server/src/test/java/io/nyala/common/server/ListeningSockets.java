package io.nyala.common.server;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The addresses this host's kernel has a TCP socket listening on for a port, read from
 * {@code /proc/net/tcp} and {@code /proc/net/tcp6} (Linux): what a server really bound, not what
 * it says it bound. An IPv4 address bound through an IPv6 socket reads as its IPv4 form.
 */
final class ListeningSockets {
  private static final String LISTEN = "0A";

  private ListeningSockets() {}

  static Set<InetAddress> on(int port) throws IOException {
    Set<InetAddress> out = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path p = Path.of(table);
      if (!Files.exists(p)) {
        continue;
      }
      for (String line : Files.readAllLines(p)) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 4 || !f[3].equals(LISTEN) || !f[1].contains(":")) {
          continue;
        }
        String[] local = f[1].split(":");
        if (Integer.parseInt(local[1], 16) == port) {
          out.add(InetAddress.getByAddress(address(local[0])));
        }
      }
    }
    return out;
  }

  /** The kernel prints each 32-bit word of the address in host (little-endian) order. */
  private static byte[] address(String hex) {
    byte[] b = new byte[hex.length() / 2];
    for (int word = 0; word < b.length / 4; word++) {
      for (int i = 0; i < 4; i++) {
        int at = (word * 4 + 3 - i) * 2;
        b[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
      }
    }
    return b;
  }
}
