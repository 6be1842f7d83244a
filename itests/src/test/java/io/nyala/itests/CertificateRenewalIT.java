package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.security.pki.Pem;
import io.nyala.minicluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tablet server renews its certificate from the master's CA while it runs
 * (docs/architecture.md, "TLS and the internal CA"): the master issues certificates valid 24 s,
 * so the tablet server, given only the CA, renews at 16 s; writes and reads go on through the
 * renewal, and past the first certificate's end a new client (whose handshake would refuse an
 * expired certificate) writes and reads, and the tablet server registers again with a restarted
 * master over a new connection, presenting the renewed certificate.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CertificateRenewalIT {
  private static final int VALIDITY_S = 24;
  private static final int BATCH = 20;

  @TempDir
  Path tmp;

  @Test
  void aTabletServerRenewsItsCertificateWhileItServes() throws Exception {
    Path root = tmp.resolve("cluster");
    try (MiniCluster cluster = MiniCluster.builder().dataRoot(root).numMasters(1)
        .numTabletServers(1).encryption(true).tserverCertificatesFromMaster(true)
        .masterFlag("--server_certificate_validity_s=" + VALIDITY_S).build()) {
      Path chainFile = root.resolve(cluster.tabletServer(0).name()).resolve("wal")
          .resolve("tls").resolve("server.crt");
      X509Certificate first = leaf(chainFile);
      Instant firstEnd = first.getNotAfter().toInstant();
      MetricRegistry metrics = cluster.inProcessTabletServer(0).metrics();

      NyalaClient client = cluster.newClient();
      NyalaTable table = client.createTable("renewal", TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(1));
      Map<Long, String> expected = new TreeMap<>();
      AtomicLong next = new AtomicLong();
      // Writes and reads all along, until the tablet server renewed and its first certificate
      // is past its end.
      await("a renewal, and the first certificate's end").atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500)).until(() -> {
            writeAndRead(client, table, next, expected);
            return metrics.value("certificate_renewals_total") >= 1
                && Instant.now().isAfter(firstEnd.plusSeconds(1));
          });

      X509Certificate renewed = leaf(chainFile);
      assertThat(renewed.getSerialNumber()).as("a renewed certificate stored")
          .isNotEqualTo(first.getSerialNumber());
      assertThat(renewed.getPublicKey()).as("for the same key").isEqualTo(first.getPublicKey());
      assertThat(renewed.getNotAfter().toInstant()).isAfter(Instant.now());
      assertThat(cluster.inProcessTabletServer(0).metrics().renderPrometheus())
          .contains("certificate_expiry_seconds");

      // New connections: a new client's handshake, and the tablet server's to a new master.
      NyalaClient fresh = cluster.newClient();
      writeAndRead(fresh, fresh.openTable("renewal"), next, expected);
      cluster.restartMaster(0);
      cluster.waitForTabletServers();
      writeAndRead(fresh, fresh.openTable("renewal"), next, expected);
    }
  }

  /** Inserts the next batch of rows and checks a scan returns every row written so far. */
  private static void writeAndRead(NyalaClient client, NyalaTable table, AtomicLong next,
      Map<Long, String> expected) {
    long from = next.getAndAdd(BATCH);
    TestRows.insert(client, table, from, from + BATCH);
    LongStream.range(from, from + BATCH).forEach(k -> expected.put(k, TestRows.expected(k)));
    assertThat(TestRows.scanAll(client, table)).isEqualTo(expected);
  }

  private static X509Certificate leaf(Path chainFile) throws Exception {
    return Pem.readCertificates(Files.readString(chainFile), chainFile.toString()).get(0);
  }
}
