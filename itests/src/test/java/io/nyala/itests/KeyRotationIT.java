package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.cli.NyalaCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rotating the cluster key without downtime (docs/encryption.md, "Rotating the cluster key"):
 * while a writer writes rows and counts the acknowledged ones, {@code nyala cluster rotate-key
 * --retire-old} adds version 2, waits for every master and tablet server to move and retires
 * version 1. Then every server restarts: every acknowledged row reads back, the key file holds
 * only version 2 and every instance file's server key is wrapped by it. Runs with the
 * minicluster's TLS off and on (its harness certificate makes the admin calls when on).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class KeyRotationIT {
  private static final String TABLE = "rotating";

  @TempDir
  Path tmp;

  /**
   * With TLS off the command talks plaintext; with TLS on (and RPC authentication required) it
   * presents the harness's certificate, as an operator presents a server certificate.
   */
  @ParameterizedTest(name = "tls={0}")
  @ValueSource(booleans = {false, true})
  void rotateWhileWritingRetireTheOldKeyAndRestartEveryServer(boolean tls) throws Exception {
    Path root = tmp.resolve("cluster");
    try (MiniCluster cluster = MiniCluster.builder().numMasters(3).numTabletServers(3)
        .dataRoot(root).encryption(true).tls(tls).tserverFlag("--heartbeat_interval_ms=300")
        .build()) {
      assertThat(cluster.trustedCaFile() != null).as("TLS").isEqualTo(tls);
      NyalaClient client = cluster.newClient();
      NyalaTable table = client.createTable(TABLE, TestRows.schema(),
          new CreateTableOptions().addHashPartitions(List.of("key"), 3).setNumReplicas(3));
      Set<Long> acked = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong failures = new AtomicLong();
      Thread writer = new Thread(() -> write(client, table, acked, stop, failures), "writer");
      writer.start();
      awaitRows(acked, 100);

      if (tls) {
        // Without a certificate the admin calls are refused, and the key file stays as it is.
        List<String> anonymous = new ArrayList<>(List.of(rotateArgs(cluster)));
        anonymous.removeIf(a -> a.startsWith("--tls_"));
        assertThat(NyalaCommand.run(anonymous.toArray(String[]::new)))
            .as("rotate-key without a certificate").isEqualTo(1);
        assertThat(FileKeyProvider.open(cluster.clusterKeyFile()).versions()).containsExactly(1);
      }
      String out = runCli(rotateArgs(cluster));
      int atRotation = acked.size();
      awaitRows(acked, atRotation + 100);
      stop.set(true);
      writer.join();

      assertThat(out).contains("rotating the cluster key to version 2")
          .contains("tablet servers moved: 3/3, masters moved: 3/3, catalog keys under older "
              + "versions: 0")
          .contains("retired cluster key versions [1]");
      assertThat(FileKeyProvider.open(cluster.clusterKeyFile()).versions())
          .as("key file versions").containsExactly(2);

      cluster.restart();
      NyalaClient after = cluster.newClient();
      Map<Long, String> rows = TestRows.scanAll(after, after.openTable(TABLE));
      assertThat(rows.keySet()).as("acknowledged rows after the restart (%d acknowledged, %d "
          + "writes failed)", acked.size(), failures.get()).containsAll(acked);
      rows.forEach((k, v) -> assertThat(v).as("row %d", k).isEqualTo(TestRows.expected(k)));
      cluster.stop();

      List<Path> instances = instanceFiles(root);
      assertThat(instances).as("instance files of 6 servers").hasSizeGreaterThanOrEqualTo(6);
      for (Path f : instances) {
        InstancePB pb = ServerFs.readInstance(f);
        assertThat(pb.getServerKeyVersion()).as("cluster key version of %s", f).isEqualTo(2);
      }
    }
  }

  /** {@code nyala cluster rotate-key --retire-old}, presenting the harness's certificate. */
  private static String[] rotateArgs(MiniCluster cluster) {
    List<String> args = new ArrayList<>(List.of("cluster", "rotate-key",
        "--masters=" + cluster.masterAddresses(),
        "--cluster_key_file=" + cluster.clusterKeyFile(), "--retire-old",
        "--timeout-ms=180000"));
    Path ca = cluster.trustedCaFile();
    if (ca != null) {
      Path dir = ca.getParent();
      args.add("--trusted_ca_file=" + ca);
      args.add("--tls_cert_file=" + dir.resolve("minicluster-harness.crt"));
      args.add("--tls_key_file=" + dir.resolve("minicluster-harness.key"));
    }
    return args.toArray(String[]::new);
  }

  /** Writes rows of ten until told to stop; records each acknowledged key. */
  private static void write(NyalaClient client, NyalaTable table, Set<Long> acked,
      AtomicBoolean stop, AtomicLong failures) {
    long next = 0;
    while (!stop.get()) {
      List<Long> batch = new ArrayList<>();
      try (NyalaSession s = client.newSession()) {
        s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
        for (int i = 0; i < 10; i++, next++) {
          Operation op = table.newInsert();
          op.getRow().addLong("key", next).addString("name", TestRows.name(next))
              .addInt("num", TestRows.num(next)).addDouble("dbl", TestRows.dbl(next));
          s.apply(op);
          batch.add(next);
        }
        List<OperationResponse> responses = s.flush();
        for (int i = 0; i < responses.size(); i++) {
          if (responses.get(i).hasRowError()) {
            failures.incrementAndGet();
          } else {
            acked.add(batch.get(i));
          }
        }
      } catch (RuntimeException e) {
        failures.incrementAndGet();
      }
    }
  }

  private static void awaitRows(Set<Long> acked, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (acked.size() < n) {
      assertThat(System.nanoTime() - deadline).as("%d rows acknowledged", n).isNegative();
      Thread.sleep(50);
    }
  }

  /** Runs {@code nyala ...} in this JVM; returns what it printed, failing on a bad status. */
  private static String runCli(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    int status;
    try {
      status = NyalaCommand.run(args);
    } finally {
      System.setOut(old);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    System.out.print(out);
    assertThat(status).as("nyala %s printed %s", String.join(" ", args), out).isZero();
    return out;
  }

  private static List<Path> instanceFiles(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().equals(ServerFs.INSTANCE)).toList();
    }
  }
}
