package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code @RegisterExtension static}: the builder configures the class's one cluster. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MiniClusterExtensionRegisteredTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER =
      new MiniClusterExtension(b -> b.numTabletServers(1));

  @Test
  void theBuilderConfiguresTheClusterAndParametersGetTheSameOne(MiniCluster cluster,
      NyalaClient client) {
    assertThat(cluster).isSameAs(CLUSTER.cluster());
    assertThat(cluster.numTabletServers()).isEqualTo(1);
    assertThat(client).isSameAs(CLUSTER.client());
  }

  @Test
  void writesAndReadsThroughTheSharedClient() {
    NyalaClient client = CLUSTER.client();
    NyalaTable table = client.createTable("registered_t", MiniClusterExtensionTest.SCHEMA,
        new CreateTableOptions().setNumReplicas(1));
    MiniClusterExtensionTest.writeAndRead(client.newSession(), table,
        client.newScannerBuilder(table).build());
  }

  @Nested
  class NestedClass {
    @Test
    void sharesTheEnclosingClassCluster(MiniCluster cluster) {
      assertThat(cluster).isSameAs(CLUSTER.cluster());
    }
  }

  /** A PER_CLASS instance is built before the class's beforeAll callbacks run. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class PerClassConstructorInjection {
    private final AsyncNyalaClient async;

    PerClassConstructorInjection(AsyncNyalaClient async) {
      this.async = async;
    }

    @Test
    void getsTheSharedClientsAsyncSide() {
      assertThat(async).isSameAs(CLUSTER.client().getAsyncClient());
    }
  }
}
