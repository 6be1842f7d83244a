package io.nyala.common.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for test servers on 127.0.0.1 that nothing else will take between the probe and the
 * server's own bind. A port from {@code bind(0)} comes from the ephemeral range, which outgoing
 * connections draw from too: another test's connection can take it first, and Ratis answers a
 * failed bind by exiting the JVM. These come from below that range (Linux: 32768 and up), each
 * handed out once per JVM, starting at a pid-derived offset so that concurrent JVMs rarely meet.
 */
public final class TestPorts {
  private static final int LOW = 10_000;
  private static final int HIGH = 32_000;
  private static final AtomicInteger NEXT = new AtomicInteger(
      (int) (ProcessHandle.current().pid() * 997 % (HIGH - LOW)));

  private TestPorts() {}

  /** A port on 127.0.0.1, below the ephemeral range, that was free a moment ago. */
  public static int freePort() {
    for (int attempt = 0; attempt < HIGH - LOW; attempt++) {
      int port = LOW + Math.floorMod(NEXT.getAndIncrement(), HIGH - LOW);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress("127.0.0.1", port));
        return port;
      } catch (IOException e) {
        // taken: try the next one
      }
    }
    throw new IllegalStateException("no free port in [" + LOW + ", " + HIGH + ") on 127.0.0.1");
  }
}
