package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.cli.NyalaCommand;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * while a writer writes rows and counts the acknowledged ones, with one tablet server down,
 * {@code nyala cluster rotate-key} adds version 2 and waits for every master and live tablet
 * server to move; {@code retire-key} refuses, naming the server that is down, until it came
 * back and caught up, and then retires version 1. Then every server restarts: every
 * acknowledged row reads back, the key file holds only version 2 and every instance file's
 * server key is wrapped by it. Runs with the
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
        .masterFlag("--tserver_unresponsive_timeout_ms=5000").build()) {
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
        List<String> anonymous = new ArrayList<>(List.of(keyArgs(cluster, "rotate-key")));
        anonymous.removeIf(a -> a.startsWith("--tls_"));
        assertThat(runCli(1, anonymous.toArray(String[]::new)))
            .contains("needs a server identity");
        assertThat(FileKeyProvider.open(cluster.clusterKeyFile()).versions()).containsExactly(1);
      }
      // A tablet server is down throughout the rotation: the rest move without it.
      String down = cluster.tabletServer(2).name();
      cluster.stopTabletServer(2);
      String out = runCli(0, keyArgs(cluster, "rotate-key"));
      int atRotation = acked.size();
      assertThat(out).contains("rotating the cluster key to version 2")
          .contains("tablet servers moved: 2/2, masters moved: 3/3, catalog keys under older "
              + "versions: 0");
      // Retiring now would leave it unable to open its instance file: refused, naming it.
      assertThat(runCli(1, keyArgs(cluster, "retire-key")))
          .contains("cannot retire").contains("tablet server " + down)
          .contains("down) is at key version 1");
      assertThat(FileKeyProvider.open(cluster.clusterKeyFile()).versions())
          .containsExactly(1, 2);
      // Back, it catches up from the leader's heartbeat answers; then retirement goes ahead.
      cluster.startTabletServer(2);
      awaitMoved(cluster, cluster.tabletServer(2).uuid(), 2);
      assertThat(runCli(0, keyArgs(cluster, "retire-key")))
          .contains("retired cluster key versions [1]");
      awaitRows(acked, atRotation + 100);
      stop.set(true);
      writer.join();

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

  /** {@code nyala cluster COMMAND}, presenting the harness's certificate when TLS is on. */
  private static String[] keyArgs(MiniCluster cluster, String command) {
    List<String> args = new ArrayList<>(List.of("cluster", command,
        "--masters=" + cluster.masterAddresses(),
        "--cluster_key_file=" + cluster.clusterKeyFile(), "--timeout-ms=180000"));
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

  private static void awaitRows(Set<Long> acked, int n) {
    await(n + " rows acknowledged").atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(50)).until(() -> acked.size() >= n);
  }

  /** Waits until the leader master has heard tablet server {@code uuid} report {@code v}. */
  private static void awaitMoved(MiniCluster cluster, String uuid, int v) {
    // Exceptions are ignored while no master leads (leaderMasterIndex is then -1).
    await(uuid + " reports version " + v).atMost(Duration.ofSeconds(120)).ignoreExceptions()
        .pollInterval(Duration.ofMillis(100)).until(() -> {
          TSDescriptor d = cluster.inProcessMaster(cluster.leaderMasterIndex()).tsManager()
              .get(uuid);
          return d != null && d.clusterKeyVersion() == v;
        });
  }

  /**
   * Runs {@code nyala ...} in this JVM; returns what it printed to stdout and stderr, failing
   * unless it exits with {@code status}.
   */
  private static String runCli(int status, String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    int exit;
    try {
      exit = NyalaCommand.run(args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    oldOut.print(out);
    assertThat(exit).as("nyala %s printed %s", String.join(" ", args), out).isEqualTo(status);
    return out;
  }

  private static List<Path> instanceFiles(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().equals(ServerFs.INSTANCE)).toList();
    }
  }
}
