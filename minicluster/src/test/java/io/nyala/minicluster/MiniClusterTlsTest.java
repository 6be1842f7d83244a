package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.ClientConfig;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MiniCluster.Builder#tls(boolean)} in this JVM, on by default: servers start with TLS
 * required, the cluster's client and probes trust its CA, clients from
 * {@link MiniCluster#clientBuilder()}, {@link MiniCluster#asyncClientBuilder()} and the client
 * config file are served, a client built by hand without the CA is refused, and the
 * certificates survive a restart. Process mode is covered by the itests' {@code TlsIT}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MiniClusterTlsTest {
  @TempDir
  Path tmp;

  @Test
  void servesClientsThatTrustItsCaAcrossARestart() throws IOException {
    try (MiniCluster cluster = MiniCluster.builder().numTabletServers(3)
        .dataRoot(tmp.resolve("c")).build()) {
      assertThat(cluster.trustedCaFile()).isRegularFile()
          .isEqualTo(tmp.resolve("c").resolve("tls").resolve("ca.crt"));
      NyalaClient client = cluster.newClient();
      Schema schema = Schema.forTable(List.of(
          ColumnSchema.builder("k", Type.INT64).key(true).build(),
          ColumnSchema.builder("v", Type.STRING).build()));
      NyalaTable t = client.createTable("tls", schema,
          new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
      try (NyalaSession s = client.newSession()) {
        for (long k = 0; k < 20; k++) {
          Operation op = t.newInsert();
          op.getRow().addLong("k", k).addString("v", "v" + k);
          s.apply(op);
        }
      }
      assertThat(count(client, t)).isEqualTo(20);
      assertThat(cluster.tablets().awaitVoters("tls", 3, Duration.ofSeconds(60))).hasSize(2);

      cluster.restart();
      NyalaClient again = cluster.newClient();
      assertThat(count(again, again.openTable("tls"))).isEqualTo(20);

      Path config = cluster.clientConfigFile();
      assertThat(Files.getPosixFilePermissions(config))
          .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
              PosixFilePermission.OWNER_WRITE);
      assertThat(Files.readString(config)).doesNotContain(cluster.credentials().password());
      try (NyalaClient built = cluster.clientBuilder().defaultOperationTimeoutMs(20_000).build();
          AsyncNyalaClient async = cluster.asyncClientBuilder().build();
          NyalaClient fromConfig = NyalaClient.builder(cluster.masterAddresses())
              .clientConfig(config).build()) {
        assertThat(built.listTables()).containsExactly("tls");
        assertThat(async.listTables().join()).containsExactly("tls");
        assertThat(count(fromConfig, fromConfig.openTable("tls"))).isEqualTo(20);
      }

      try (NyalaClient plain = NyalaClient.builder(cluster.masterAddresses())
          .defaultAdminOperationTimeoutMs(2_000).build()) {
        assertThatThrownBy(plain::listTables).isInstanceOf(NyalaException.class)
            .hasMessageContaining("trustedCaFile");
      }
    }
  }

  /** Plaintext on purpose: what tls(false) leaves out. */
  @Test
  void withoutTlsThereIsNoCaAndTheClientConfigHasOnlyTheMasters() {
    try (MiniCluster cluster = MiniCluster.builder().numTabletServers(0).tls(false)
        .dataRoot(tmp.resolve("p")).build()) {
      assertThat(cluster.trustedCaFile()).isNull();
      assertThat(cluster.credentials()).isNull();
      assertThat(Files.exists(tmp.resolve("p").resolve("tls"))).isFalse();
      assertThat(ClientConfig.read(cluster.clientConfigFile()))
          .isEqualTo(new ClientConfig(cluster.masterAddresses(), null, null, null));
    }
  }

  private static long count(NyalaClient client, NyalaTable t) {
    long n = 0;
    NyalaScanner scanner = client.newScannerBuilder(t).build();
    while (scanner.hasMoreRows()) {
      n += scanner.nextRows().getNumRows();
    }
    scanner.close();
    return n;
  }
}
