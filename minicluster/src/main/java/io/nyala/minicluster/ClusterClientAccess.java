package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import io.nyala.client.authn.UserCredentials;
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

  /** The CA (PEM) of the servers' certificates under {@code tls(true)}, else null. */
  public Path trustedCaFile() {
    return tls().trustedCaFile();
  }

  /** Under {@code tls(true)} the user (and password) its clients authenticate as, else null. */
  public UserCredentials credentials() {
    return tls().credentials();
  }
}
