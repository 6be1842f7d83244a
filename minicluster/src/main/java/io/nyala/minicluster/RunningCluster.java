package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A cluster {@link MiniClusterExtension} started and the one client it hands out, kept in the
 * {@link ExtensionContext.Store} of the context its lifecycle ties it to (a test method, a test
 * class or the root, for shared clusters), which closes it when that context ends. Both
 * interfaces: JUnit 5.13+ closes {@link AutoCloseable} values (and deprecates
 * {@code CloseableResource}), older versions only close {@code CloseableResource}.
 */
@SuppressWarnings("deprecation")
final class RunningCluster implements ExtensionContext.Store.CloseableResource, AutoCloseable {
  private final MiniCluster cluster;
  private final NyalaClient client;

  private RunningCluster(MiniCluster cluster, NyalaClient client) {
    this.cluster = cluster;
    this.client = client;
  }

  /** Starts the cluster {@code spec} describes and its client; closes the cluster on failure. */
  static RunningCluster start(ClusterSpec spec) {
    MiniCluster cluster = spec.newCluster();
    try {
      return new RunningCluster(cluster, cluster.newClient());
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  MiniCluster cluster() {
    return cluster;
  }

  NyalaClient client() {
    return client;
  }

  /** Closes the client (the cluster closes the clients it made) and stops every server. */
  @Override
  public void close() {
    cluster.close();
  }
}
