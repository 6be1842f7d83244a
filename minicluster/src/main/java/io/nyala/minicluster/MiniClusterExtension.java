package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs one {@link MiniCluster} for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final MiniClusterExtension CLUSTER =
 *     new MiniClusterExtension(b -> b.numTabletServers(3));
 *
 * @Test void writes() { NyalaClient client = CLUSTER.client(); ... }
 * }</pre>
 */
public final class MiniClusterExtension implements BeforeAllCallback, AfterAllCallback {
  private final Consumer<MiniCluster.Builder> configure;
  private MiniCluster cluster;
  private NyalaClient client;

  /** A cluster with the builder's defaults (1 master, 3 tablet servers). */
  public MiniClusterExtension() {
    this(b -> { });
  }

  /** A cluster configured by {@code configure}. */
  public MiniClusterExtension(Consumer<MiniCluster.Builder> configure) {
    this.configure = configure;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    MiniCluster.Builder b = MiniCluster.builder();
    configure.accept(b);
    cluster = b.build();
    client = cluster.newClient();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  /** The running cluster. */
  public MiniCluster cluster() {
    return cluster;
  }

  /** A client shared by the class's tests, closed with the cluster. */
  public NyalaClient client() {
    return client;
  }
}
