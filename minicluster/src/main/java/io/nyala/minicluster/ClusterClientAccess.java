package io.nyala.minicluster;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.NyalaClient;
import io.nyala.client.authn.UserCredentials;
import io.nyala.common.rpc.Channels;
import java.nio.file.Path;

/**
 * How tests and tools reach a {@link MiniCluster} as clients: its own clients, and what a client
 * built by hand needs (the CA it trusts, the user it authenticates as). {@link MiniCluster} is its
 * one subclass; these methods are the cluster's public API, kept here so that
 * {@code MiniCluster.java} stays within the file size limit (docs/conventions.md).
 */
abstract class ClusterClientAccess {
  /** The clients the cluster hands out and closes. */
  abstract ClusterClients clients();

  /** The cluster's TLS (or none). */
  abstract ClusterTls tls();

  /** A new client of this cluster (trusting its CA under TLS); closed with the cluster. */
  public NyalaClient newClient() {
    return clients().newClient();
  }

  /**
   * A builder of a client of this cluster, for a test that needs its own client or options of
   * its own (timeouts, ...): set with the masters and, under TLS (the default), the cluster's CA
   * ({@link #trustedCaFile()}) and its user ({@link #credentials()}). The caller closes what it
   * builds.
   *
   * <pre>{@code
   * try (NyalaClient client = cluster.clientBuilder().defaultOperationTimeoutMs(5000).build()) {
   * }</pre>
   */
  public NyalaClient.Builder clientBuilder() {
    return clients().builder();
  }

  /** As {@link #clientBuilder()}, for an {@link AsyncNyalaClient}; the caller closes it. */
  public AsyncNyalaClient.Builder asyncClientBuilder() {
    return clients().asyncBuilder();
  }

  /**
   * Writes {@code <data root>/client.properties}, owner-only, and returns it: the client
   * configuration file ({@link io.nyala.client.ClientConfig}) that {@code nyala} commands read
   * with {@code --client-config} or {@code NYALA_CLIENT_CONFIG} and
   * {@link NyalaClient.Builder#clientConfig} applies: the masters and, under TLS, the CA, the
   * user and the file holding its password.
   */
  public Path clientConfigFile() {
    return clients().writeConfigFile();
  }

  /**
   * Channels to this cluster's servers for a test's or tool's raw gRPC calls (probes, malformed
   * requests): under TLS they trust the CA and present the harness's certificate
   * ({@code minicluster-harness}), which servers take as a server's identity, so admin and client
   * RPCs alike are served; plaintext otherwise. One channel per address, reused; the caller
   * closes them.
   */
  public Channels newHarnessChannels() {
    return tls().newHarnessChannels();
  }

  /** The CA (PEM) of the servers' certificates under TLS (the default), else null. */
  public Path trustedCaFile() {
    return tls().trustedCaFile();
  }

  /** Under TLS (the default) the user (and password) its clients authenticate as, else null. */
  public UserCredentials credentials() {
    return tls().credentials();
  }
}
