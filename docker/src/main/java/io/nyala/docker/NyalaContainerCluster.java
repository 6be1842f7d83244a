package io.nyala.docker;

import io.nyala.client.NyalaClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.lifecycle.Startable;

/**
 * A Nyala cluster in Docker containers for Testcontainers-based tests: one master and N tablet
 * servers on a private network, the master's RPC port mapped to the host.
 *
 * <pre>{@code
 * try (NyalaContainerCluster c =
 *     new NyalaContainerCluster(NyalaContainerCluster.localImage(root), 3)) {
 *   c.start();
 *   try (NyalaClient client = c.newClient()) { ... }
 * }
 * }</pre>
 *
 * <p>Clients outside Docker reach the master through the mapped port; tablet servers advertise
 * their container names, so data calls from the host need the host to resolve them (run the
 * test itself in a container, or use {@link #execInMaster}). Inside the network everything works.
 * Servers bind loopback unless told otherwise, so every container names the interfaces its
 * listeners bind (0.0.0.0, or its network alias for Raft).
 */
public final class NyalaContainerCluster implements Startable {
  public static final int MASTER_RPC_PORT = 7051;
  public static final int MASTER_WEB_PORT = 8051;
  public static final int TSERVER_RPC_PORT = 7050;

  private final Network network = Network.newNetwork();
  private final GenericContainer<?> master;
  private final List<GenericContainer<?>> tservers = new ArrayList<>();

  /** A cluster of one master and {@code numTabletServers} tablet servers from {@code image}. */
  public NyalaContainerCluster(ImageFromDockerfile image, int numTabletServers) {
    master = new GenericContainer<>(image)
        .withNetwork(network)
        .withNetworkAliases("master-1")
        .withCommand("master", "--server_name=master-1",
            "--master_addresses=master-1:" + MASTER_RPC_PORT,
            "--rpc_bind_addresses=0.0.0.0:" + MASTER_RPC_PORT,
            "--rpc_advertised_addresses=master-1:" + MASTER_RPC_PORT,
            "--raft_bind_address=master-1:7061",
            "--webserver_interface=0.0.0.0")
        .withExposedPorts(MASTER_RPC_PORT, MASTER_WEB_PORT)
        .waitingFor(Wait.forHttp("/healthz").forPort(MASTER_WEB_PORT)
            .withStartupTimeout(Duration.ofSeconds(60)));
    for (int i = 1; i <= numTabletServers; i++) {
      String name = "ts-" + i;
      tservers.add(new GenericContainer<>(image)
          .withNetwork(network)
          .withNetworkAliases(name)
          .withCommand("tserver", "--server_name=" + name,
              "--master_addresses=master-1:" + MASTER_RPC_PORT,
              "--rpc_bind_addresses=0.0.0.0:" + TSERVER_RPC_PORT,
              "--rpc_advertised_addresses=" + name + ":" + TSERVER_RPC_PORT,
              "--raft_bind_address=" + name + ":7060",
              "--webserver_interface=0.0.0.0")
          .withExposedPorts(TSERVER_RPC_PORT, 8050)
          .waitingFor(Wait.forHttp("/healthz").forPort(8050)
              .withStartupTimeout(Duration.ofSeconds(60)))
          .dependsOn(master));
    }
  }

  /**
   * The server image built from this repository's {@code docker/image/Dockerfile}; the
   * distribution ({@code minicluster/target/dist/lib}) must have been built by {@code package}.
   */
  public static ImageFromDockerfile localImage(Path repoRoot) {
    return new ImageFromDockerfile("nyala-test", false)
        .withFileFromPath("minicluster/target/dist/lib",
            repoRoot.resolve("minicluster/target/dist/lib"))
        .withFileFromPath("docker/image/entrypoint.sh",
            repoRoot.resolve("docker/image/entrypoint.sh"))
        .withFileFromPath("Dockerfile", repoRoot.resolve("docker/image/Dockerfile"));
  }

  @Override
  public void start() {
    master.start();
    tservers.forEach(GenericContainer::start);
  }

  @Override
  public void stop() {
    tservers.forEach(GenericContainer::stop);
    master.stop();
    network.close();
  }

  /** The master's RPC address as reachable from the host. */
  public String masterAddress() {
    return master.getHost() + ":" + master.getMappedPort(MASTER_RPC_PORT);
  }

  /** The master's web UI URL from the host. */
  public String masterWebUrl() {
    return "http://" + master.getHost() + ":" + master.getMappedPort(MASTER_WEB_PORT);
  }

  /** A client for DDL against the mapped master port. */
  public NyalaClient newClient() {
    return NyalaClient.builder(masterAddress()).build();
  }

  /** Runs a {@code nyala} CLI command inside the master's container; returns its stdout. */
  public String execInMaster(String... cliArgs) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-cp", "/opt/nyala/lib/*",
        "io.nyala.minicluster.cli.NyalaCommand"));
    cmd.addAll(List.of(cliArgs));
    var r = master.execInContainer(cmd.toArray(String[]::new));
    if (r.getExitCode() != 0) {
      throw new IllegalStateException("nyala " + String.join(" ", cliArgs) + " failed ("
          + r.getExitCode() + "): " + r.getStderr());
    }
    return r.getStdout();
  }

  public int numTabletServers() {
    return tservers.size();
  }
}
