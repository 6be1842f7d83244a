package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.NyalaClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The extension's clusters run TLS and authentication by default, with a client that is served;
 * {@code @NyalaCluster(tls = false)} gives a plaintext one.
 */
@NyalaCluster(tservers = 1)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MiniClusterExtensionTlsTest {
  @Test
  void tlsAndAuthenticationByDefault(MiniCluster cluster, NyalaClient client) {
    assertThat(cluster.trustedCaFile()).isRegularFile();
    assertThat(cluster.credentials()).isNotNull();
    assertThat(client.listTables()).isEmpty();
  }

  /** Plaintext on purpose: what {@code tls = false} gives. */
  @Test
  @NyalaCluster(tservers = 1, tls = false)
  void tlsFalseGivesAPlaintextClusterAndItsClient(MiniCluster cluster, NyalaClient client) {
    assertThat(cluster.trustedCaFile()).isNull();
    assertThat(cluster.credentials()).isNull();
    assertThat(client.listTables()).isEmpty();
  }
}
