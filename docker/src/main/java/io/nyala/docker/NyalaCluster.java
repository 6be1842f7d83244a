package io.nyala.docker;

import io.nyala.client.NyalaClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.lifecycle.Startable;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * A Nyala cluster in Docker containers for tests: N masters and M tablet servers of one image on
 * a network of their own, reachable from the host.
 *
 * <pre>{@code
 * try (NyalaCluster cluster = new NyalaCluster(DockerImageName.parse("nyala:0.1.0"))
 *     .withMasters(3).withTabletServers(3)) {
 *   cluster.start();                       // returns once the cluster takes writes
 *   try (NyalaClient client = cluster.newClient()) {
 *     client.createTable("t", schema, new CreateTableOptions()
 *         .addHashPartitions(List.of("id"), 3).setNumReplicas(3));
 *   }
 * }
 * }</pre>
 *
 * <p>Peers reach each other at the server's name on the network ({@code master-1},
 * {@code ts-1}, ...); each server's RPC port is also published on the host and advertised to
 * clients with {@code --rpc_advertised_addresses}, so a client on the host reaches masters and
 * tablet servers alike. {@link #start()} waits for every container's {@code HEALTHCHECK} (the
 * web server's {@code /healthz}), then until the leader master counts every tablet server live
 * and a probe table takes a write. Every line a server prints goes to SLF4J prefixed with its
 * name ({@link ServerLogConsumer}). Testcontainers' reaper cannot run where no registry is
 * reachable; {@link #stop()} removes the containers and the network itself.
 */
public final class NyalaCluster implements Startable, AutoCloseable {
  /**
   * JVM options of each server unless {@link #withJavaOptions} says otherwise: small heaps and
   * a quick start, since a test runs several servers on one machine.
   */
  public static final String DEFAULT_JAVA_OPTIONS =
      "-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:MetaspaceSize=128m";

  private final DockerImageName image;
  private int numMasters = 1;
  private int numTservers = 3;
  private boolean encryption;
  private final List<String> flags = new ArrayList<>();
  private final List<String> masterFlags = new ArrayList<>();
  private final List<String> tserverFlags = new ArrayList<>();
  private Duration startupTimeout = Duration.ofMinutes(3);
  private String javaOptions = DEFAULT_JAVA_OPTIONS;

  private Network network;
  private final List<GenericContainer<?>> masters = new ArrayList<>();
  private final List<GenericContainer<?>> tservers = new ArrayList<>();
  private final List<String> masterClientAddresses = new ArrayList<>();
  private final ClusterReadiness readiness = new ClusterReadiness();

  /** A cluster of one master and three tablet servers of {@code image} (see the setters). */
  public NyalaCluster(DockerImageName image) {
    this.image = image;
  }

  /** Number of masters (default 1); an even number cannot elect a leader after a loss. */
  public NyalaCluster withMasters(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("a cluster needs at least one master, got " + n);
    }
    this.numMasters = n;
    return this;
  }

  /** Number of tablet servers (default 3). */
  public NyalaCluster withTabletServers(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("a cluster needs at least one tablet server, got " + n);
    }
    this.numTservers = n;
    return this;
  }

  /** Encrypts data at rest on every server, all with one cluster key made for this cluster. */
  public NyalaCluster withEncryption() {
    this.encryption = true;
    return this;
  }

  /** Adds a flag ({@code --name=value}) to every server's command line. */
  public NyalaCluster withFlag(String flag) {
    flags.add(checkFlag(flag));
    return this;
  }

  /** Adds a flag to the masters' command lines only. */
  public NyalaCluster withMasterFlag(String flag) {
    masterFlags.add(checkFlag(flag));
    return this;
  }

  /** Adds a flag to the tablet servers' command lines only. */
  public NyalaCluster withTabletServerFlag(String flag) {
    tserverFlags.add(checkFlag(flag));
    return this;
  }

  /** How long {@link #start()} waits for each container and then for the cluster (3 min). */
  public NyalaCluster withStartupTimeout(Duration timeout) {
    this.startupTimeout = timeout;
    return this;
  }

  /** JVM options of every server (the image's {@code NYALA_JAVA_OPTS}). */
  public NyalaCluster withJavaOptions(String options) {
    this.javaOptions = options;
    return this;
  }

  private static String checkFlag(String flag) {
    if (flag == null || !flag.startsWith("--")) {
      throw new IllegalArgumentException("a flag starts with --, got '" + flag + "'");
    }
    return flag;
  }

  /**
   * Starts the masters together (they find each other), then the tablet servers, and returns
   * once the cluster takes writes.
   *
   * @throws org.testcontainers.containers.ContainerLaunchException if it does not in time
   */
  @Override
  public void start() {
    if (network != null) {
      return;
    }
    network = Network.newNetwork();
    String clientHost = clientHost();
    ServerContainers factory =
        new ServerContainers(image, network, clientHost, startupTimeout, javaOptions);
    String key = encryption ? HexFormat.of().formatHex(SecureRandom.getSeed(32)) : null;
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= numMasters; i++) {
      names.add("master-" + i + ":" + ServerContainers.MASTER_RPC_PORT);
    }
    String peers = String.join(",", names);
    try {
      for (int i = 1; i <= numMasters; i++) {
        int port = ServerContainers.freeHostPort();
        masterClientAddresses.add(clientHost + ":" + port);
        masters.add(factory.create(true, "master-" + i, port, peers, key, concat(masterFlags)));
      }
      for (int i = 1; i <= numTservers; i++) {
        tservers.add(factory.create(false, "ts-" + i, ServerContainers.freeHostPort(), peers,
            key, concat(tserverFlags)));
      }
      Startables.deepStart(masters).join();
      Startables.deepStart(tservers).join();
      try (NyalaClient client = newClient()) {
        readiness.await(masterWebUrls(), numTservers, client, startupTimeout);
      }
    } catch (RuntimeException e) {
      stop();
      throw e;
    }
  }

  private List<String> concat(List<String> roleFlags) {
    List<String> all = new ArrayList<>(flags);
    all.addAll(roleFlags);
    return all;
  }

  /** The host name clients use for published ports; loopback by address, not by name. */
  private static String clientHost() {
    String host = DockerClientFactory.instance().dockerHostIpAddress();
    return "localhost".equals(host) ? "127.0.0.1" : host;
  }

  /** Stops and removes every container, then the network. Safe to call more than once. */
  @Override
  public void stop() {
    for (GenericContainer<?> c : tservers) {
      c.stop();
    }
    for (GenericContainer<?> c : masters) {
      c.stop();
    }
    tservers.clear();
    masters.clear();
    masterClientAddresses.clear();
    if (network != null) {
      network.close();
      network = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The masters' RPC addresses ({@code host:port}) as reachable from the host. */
  public List<String> getMasterAddresses() {
    return List.copyOf(masterClientAddresses);
  }

  /** A client of this cluster from the host; the caller closes it. */
  public NyalaClient newClient() {
    return NyalaClient.builder(String.join(",", masterClientAddresses)).build();
  }

  /** The container of master {@code i} (0-based; named {@code master-(i+1)}). */
  public GenericContainer<?> getMaster(int i) {
    return masters.get(i);
  }

  /** The container of tablet server {@code i} (0-based; named {@code ts-(i+1)}). */
  public GenericContainer<?> getTabletServer(int i) {
    return tservers.get(i);
  }

  /**
   * The index of the master that leads the catalog now (read from the masters' {@code /metrics}
   * pages), or -1 if none does.
   */
  public int leaderMasterIndex() {
    return readiness.leader(masterWebUrls());
  }

  private List<String> masterWebUrls() {
    return masters.stream()
        .map(m -> m.isRunning() ? "http://" + m.getHost() + ":"
            + m.getMappedPort(ServerContainers.MASTER_WEB_PORT) : "http://127.0.0.1:1")
        .collect(Collectors.toList());
  }
}
