package io.nyala.docker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Makes the container of one server. Peers reach a server at its network alias (its RPC and Raft
 * listeners bind it); clients on the host reach it at a published port it advertises with
 * {@code --rpc_advertised_addresses} (docs/docker.md).
 */
final class ServerContainers {
  static final int MASTER_RPC_PORT = 7051;
  static final int MASTER_RAFT_PORT = 7061;
  static final int MASTER_WEB_PORT = 8051;
  static final int TSERVER_RPC_PORT = 7050;
  static final int TSERVER_RAFT_PORT = 7060;
  static final int TSERVER_WEB_PORT = 8050;
  static final String KEY_FILE = "/var/lib/nyala/cluster.key";

  private final DockerImageName image;
  private final Network network;
  private final String clientHost;
  private final Duration startupTimeout;
  private final String javaOptions;

  ServerContainers(DockerImageName image, Network network, String clientHost,
      Duration startupTimeout, String javaOptions) {
    this.image = image;
    this.network = network;
    this.clientHost = clientHost;
    this.startupTimeout = startupTimeout;
    this.javaOptions = javaOptions;
  }

  /** A server's container; {@code hostRpcPort} is its published RPC port on the host. */
  GenericContainer<?> create(boolean master, String name, int hostRpcPort, String masters,
      String encryptionKeyHex, List<String> flags) {
    int rpc = master ? MASTER_RPC_PORT : TSERVER_RPC_PORT;
    int raft = master ? MASTER_RAFT_PORT : TSERVER_RAFT_PORT;
    int web = master ? MASTER_WEB_PORT : TSERVER_WEB_PORT;
    List<String> cmd = new ArrayList<>(List.of(master ? "master" : "tserver",
        "--server_name=" + name,
        "--master_addresses=" + masters,
        "--rpc_bind_addresses=" + name + ":" + rpc,
        "--raft_bind_address=" + name + ":" + raft,
        "--webserver_interface=0.0.0.0",
        "--rpc_advertised_addresses=" + clientHost + ":" + hostRpcPort));
    GenericContainer<?> c = new GenericContainer<>(image)
        .withNetwork(network)
        .withNetworkAliases(name)
        .withCreateContainerCmdModifier(create -> create.withHostName(name))
        .withEnv("NYALA_JAVA_OPTS", javaOptions)
        .withExposedPorts(rpc, web)
        .withLogConsumer(new ServerLogConsumer(name))
        .waitingFor(Wait.forHealthcheck().withStartupTimeout(startupTimeout));
    c.setPortBindings(List.of(hostRpcPort + ":" + rpc));
    if (encryptionKeyHex != null) {
      // The entrypoint writes it owner-only before the server starts: every server of a
      // cluster needs the same key (docs/encryption.md).
      c.withEnv("NYALA_ENCRYPTION_KEY", encryptionKeyHex);
      cmd.add("--encrypt_data_at_rest");
      cmd.add("--encryption_key_file=" + KEY_FILE);
    }
    cmd.addAll(flags);
    c.withCommand(cmd.toArray(String[]::new));
    return c;
  }

  /** A port free on the host now, to publish a server's RPC port on before it starts. */
  static int freeHostPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on the host to publish a server on", e);
    }
  }
}
