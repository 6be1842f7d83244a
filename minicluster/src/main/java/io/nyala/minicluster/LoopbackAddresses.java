package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import io.nyala.master.MasterServer;
import io.nyala.tserver.TabletServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the servers of a minicluster listen, in one of two layouts, persisted in the cluster's
 * data root (Raft configurations hold addresses, so a restarted cluster must get the same ones
 * back):
 * <ul>
 *   <li><b>private</b> (tests): each server its own loopback address {@code 127.a.b.c} (Linux
 *       routes all of 127/8 to lo) on the role's default ports, so nothing competes with the
 *       ephemeral range or with another cluster. {@code a.b} is derived from the JVM's pid and
 *       a per-JVM cluster counter.
 *   <li><b>localhost</b> ({@code nyala local-cluster}): every server on 127.0.0.1, on the role's
 *       default ports plus 100 per server (masters 7051, 7151, ...; tablet servers 7050, 7150,
 *       ...; Raft and web ports alike), addresses a user can type and a README can print. Chosen
 *       only when every one of those ports is free; otherwise the private layout is used.
 * </ul>
 */
final class LoopbackAddresses {
  private static final String FILE = "minicluster.properties";
  private static final String LOCALHOST = "127.0.0.1";
  /** Port step between servers of one role in the localhost layout. */
  static final int PORT_STEP = 100;
  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  /**
   * A layout: {@code prefix} {@code 127.a.b} for the private one, or null for localhost.
   */
  record Plan(String prefix) {
    boolean localhost() {
      return prefix == null;
    }

    /** The address server {@code index} (0-based) of {@code role} binds. */
    String host(ServerRole role, int index) {
      if (localhost()) {
        return LOCALHOST;
      }
      return prefix + "." + (role == ServerRole.MASTER ? 1 + index : 11 + index);
    }

    /** The port for a listener whose default is {@code defaultPort}, of server {@code index}. */
    int port(int defaultPort, int index) {
      return localhost() ? defaultPort + PORT_STEP * index : defaultPort;
    }
  }

  private LoopbackAddresses() {}

  /** Every port the localhost layout needs for {@code masters} and {@code tservers} servers. */
  static List<Integer> localhostPorts(int masters, int tservers) {
    List<Integer> ports = new ArrayList<>();
    int[] masterPorts = {MasterServer.DEFAULT_RPC_PORT, MasterServer.DEFAULT_RAFT_PORT,
        MasterServer.DEFAULT_WEB_PORT};
    int[] tserverPorts = {TabletServer.DEFAULT_RPC_PORT, TabletServer.DEFAULT_RAFT_PORT,
        TabletServer.DEFAULT_WEB_PORT};
    for (int i = 0; i < masters; i++) {
      for (int p : masterPorts) {
        ports.add(p + PORT_STEP * i);
      }
    }
    for (int i = 0; i < tservers; i++) {
      for (int p : tserverPorts) {
        ports.add(p + PORT_STEP * i);
      }
    }
    return ports;
  }

  /**
   * The layout of the cluster rooted at {@code root}: the one persisted there, else localhost
   * when {@code preferLocalhost} and every port in {@code localhostPorts} is free on 127.0.0.1,
   * else a new private prefix.
   */
  static Plan planFor(Path root, int probePort, boolean preferLocalhost,
      List<Integer> localhostPorts) {
    Properties p = read(root.resolve(FILE));
    if ("localhost".equals(p.getProperty("layout"))) {
      return new Plan(null);
    }
    if (p.getProperty("address_prefix") != null) {
      return new Plan(p.getProperty("address_prefix"));
    }
    if (preferLocalhost && localhostPorts.stream().allMatch(port -> isFree(LOCALHOST, port))) {
      Properties out = new Properties();
      out.setProperty("layout", "localhost");
      store(root.resolve(FILE), out, "Nyala minicluster: servers bind 127.0.0.1 on the default "
          + "ports + 100 per server; kept so that a restart finds its Raft peers again");
      return new Plan(null);
    }
    return new Plan(prefixFor(root, probePort));
  }

  private static Properties read(Path f) {
    Properties p = new Properties();
    if (Files.exists(f)) {
      try (InputStream in = Files.newInputStream(f)) {
        p.load(in);
      } catch (IOException e) {
        throw NyalaException.ioError("cannot read " + f + ": " + e.getMessage(), e);
      }
    }
    return p;
  }

  /** A new {@code 127.a.b} prefix for a cluster rooted at {@code root}, persisted there. */
  private static String prefixFor(Path root, int probePort) {
    Path f = root.resolve(FILE);
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
    store(f, p, "Nyala minicluster: servers bind " + prefix
        + ".N; kept so that a restart finds its Raft peers at the same addresses");
  }

  private static void store(Path f, Properties p, String comment) {
    try {
      Files.createDirectories(f.getParent());
      try (OutputStream out = Files.newOutputStream(f)) {
        p.store(out, comment);
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + f + ": " + e.getMessage(), e);
    }
  }
}
