package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gives each minicluster server its own loopback address {@code 127.a.b.c} (Linux routes all of
 * 127/8 to lo), so every server can use the role's default ports and nothing competes with the
 * ephemeral range. {@code a.b} is derived from the JVM's pid and a per-JVM cluster counter, then
 * persisted in the cluster's data root: Raft configurations hold addresses, so a restarted
 * cluster must get the same ones back.
 */
final class LoopbackAddresses {
  private static final String FILE = "minicluster.properties";
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  private LoopbackAddresses() {}

  /** The {@code 127.a.b} prefix for a cluster rooted at {@code root}. */
  static String prefixFor(Path root, int probePort) {
    Path f = root.resolve(FILE);
    if (Files.exists(f)) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(f)) {
        p.load(in);
      } catch (IOException e) {
        throw NyalaException.ioError("cannot read " + f + ": " + e.getMessage(), e);
      }
      String prefix = p.getProperty("address_prefix");
      if (prefix != null) {
        return prefix;
      }
    }
    long pid = ProcessHandle.current().pid();
    int seed = (int) ((pid * 7919 + CLUSTERS.getAndIncrement() * 104729L) % (254 * 256));
    for (int attempt = 0; attempt < 254 * 256; attempt++) {
      int v = (seed + attempt) % (254 * 256);
      String prefix = "127." + (1 + v / 256) + "." + (v % 256);
      if (isFree(prefix + ".1", probePort) && isFree(prefix + ".11", probePort)) {
        persist(f, prefix);
        return prefix;
      }
    }
    throw NyalaException.illegalState("no free loopback address prefix for %s", root);
  }

  private static boolean isFree(String host, int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(host, port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void persist(Path f, String prefix) {
    Properties p = new Properties();
    p.setProperty("address_prefix", prefix);
    try {
      Files.createDirectories(f.getParent());
      try (OutputStream out = Files.newOutputStream(f)) {
        p.store(out, "Nyala minicluster: servers bind " + prefix
            + ".N; kept so that a restart finds its Raft peers at the same addresses");
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + f + ": " + e.getMessage(), e);
    }
  }
}
