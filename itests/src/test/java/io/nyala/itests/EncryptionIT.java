package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanner;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.RowResult;
import io.nyala.common.env.TestBytes;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.cli.NyalaCommand;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.replica.TabletReplica;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Encryption at rest end to end (docs/encryption.md, "Proof"): with encryption on, rows holding a
 * marker leave no trace of it in any file of any server after every tablet and the catalog are
 * snapshotted, nor in any log line; with encryption off the same search finds it (so the search
 * is real). The encrypted cluster restarts and returns every row, and a server given another
 * cluster key file refuses to start, naming the key and the file.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class EncryptionIT {
  private static final String MARKER = "NYALA-PLAINTEXT-CANARY";
  private static final int ROWS = 300;

  @TempDir
  Path tmp;

  private static Schema schema() {
    return Schema.forTable(List.of(
        ColumnSchema.builder("k", Type.STRING).key(true).build(),
        ColumnSchema.builder("v", Type.STRING).nullable(false).build()));
  }

  @Test
  void encryptedClusterLeavesNoPlaintextAndRestarts() throws Exception {
    Path root = tmp.resolve("enc");
    List<String> logLines = new ArrayList<>();
    Map<String, String> written;
    try (AllLogs logs = new AllLogs(logLines);
        MiniCluster cluster = newCluster(root, true)) {
      written = writeAndSnapshot(cluster);
      cluster.restart();
      NyalaClient after = cluster.newClient();
      assertThat(scanAll(after, after.openTable("canary")))
          .as("every row after a restart with encryption on").isEqualTo(written);
      snapshotEverything(cluster);
      cluster.stop();

      assertThat(filesContaining(root)).as("files holding the marker").isEmpty();
      assertThat(logLines).as("log lines holding the marker")
          .noneMatch(l -> l.contains(MARKER));
      for (Path f : instanceFiles(root)) {
        InstancePB pb = ServerFs.readInstance(f);
        assertThat(pb.getUuid()).as("uuid in plain instance file %s", f).isNotEmpty();
        assertThat(pb.getWrappedServerKey().size()).as("wrapped key in %s", f).isEqualTo(40);
        assertThat(pb.getServerKeyBits()).isEqualTo(256);
      }

      Path catalogSnapshot;
      try (Stream<Path> files = Files.walk(root.resolve(cluster.master(0).name()))) {
        catalogSnapshot = files.filter(f -> f.getFileName().toString().startsWith("snapshot.")
            && !f.getFileName().toString().endsWith(".md5")).findFirst().orElseThrow();
      }
      String dump = runCli("pbc", "dump", catalogSnapshot.toString(),
          "--encryption_key_file=" + cluster.clusterKeyFile());
      assertThat(dump).as("pbc dump of the encrypted catalog snapshot")
          .contains("(encrypted)").contains("name: \"canary\"");

      ServerInfo ts = cluster.tabletServer(0);
      Path otherKey = FileKeyProvider.openOrCreate(tmp.resolve("other.key"), 256).file();
      TserverOptions o = new TserverOptions();
      new CommandLine(o).parseArgs(
          "--fs_wal_dir=" + root.resolve(ts.name()).resolve("wal"),
          "--fs_data_dirs=" + root.resolve(ts.name()).resolve("data"),
          "--encrypt_data_at_rest=true", "--encryption_key_file=" + otherKey);
      TabletServer wrongKey = new TabletServer(o);
      assertThatThrownBy(wrongKey::start)
          .hasMessageContaining(otherKey.toString())
          .hasMessageContaining(root.resolve(ts.name()).toString())
          .hasMessageContaining("/" + ServerFs.INSTANCE + " ")
          .hasMessageContaining("server key");
    }
  }

  @Test
  void plainClusterLeavesTheMarkerInDataFiles() throws Exception {
    Path root = tmp.resolve("plain");
    try (MiniCluster cluster = newCluster(root, false)) {
      writeAndSnapshot(cluster);
      cluster.stop();
      List<Path> hits = filesContaining(root);
      assertThat(hits).as("the search finds the marker without encryption").isNotEmpty();
      // Flushed rows live in the tservers' block containers.
      assertThat(hits).anyMatch(p -> p.getParent().getFileName().toString().equals("blocks"));
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
    assertThat(status).as("nyala %s printed %s", String.join(" ", args), out).isZero();
    return out;
  }

  private static MiniCluster newCluster(Path root, boolean encrypt) {
    return MiniCluster.builder().numMasters(1).numTabletServers(3)
        .dataRoot(root).encryption(encrypt)
        .tserverFlag("--heartbeat_interval_ms=300")
        .build();
  }

  /** Writes the marked rows, checks them, and snapshots every tablet and the catalog. */
  private static Map<String, String> writeAndSnapshot(MiniCluster cluster) {
    NyalaClient client = cluster.newClient();
    NyalaTable table = client.createTable("canary", schema(),
        new CreateTableOptions().addHashPartitions(List.of("k"), 3).setNumReplicas(3));
    NyalaSession session = client.newSession();
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(ROWS + 1);
    Map<String, String> written = new TreeMap<>();
    for (int i = 0; i < ROWS; i++) {
      String k = MARKER + "-key-" + i;
      String v = "value " + MARKER + " " + i;
      Operation op = table.newInsert();
      op.getRow().addString("k", k).addString("v", v);
      session.apply(op);
      written.put(k, v);
    }
    for (OperationResponse r : session.flush()) {
      assertThat(r.hasRowError()).as("row error %s", r.getRowError()).isFalse();
    }
    session.close();
    assertThat(scanAll(client, table)).isEqualTo(written);
    snapshotEverything(cluster);
    return written;
  }

  /** Snapshots each tablet through its replicas (at least one must succeed) and the catalog. */
  private static void snapshotEverything(MiniCluster cluster) {
    Set<String> snapshotted = new HashSet<>();
    Set<String> tablets = new HashSet<>();
    for (int i = 0; i < cluster.numTabletServers(); i++) {
      TabletServer ts = cluster.inProcessTabletServer(i);
      for (TabletReplica r : ts.tabletManager().replicas()) {
        tablets.add(r.tabletId());
        try {
          ts.snapshotTablet(r.tabletId());
          // Compaction rewrites flushed rows into new blocks: those must be ciphertext too.
          r.stateMachine().store().compact();
          snapshotted.add(r.tabletId());
        } catch (RuntimeException e) {
          // Ratis may only snapshot on the leader; the followers' logs are checked anyway.
        }
      }
    }
    assertThat(snapshotted).as("tablets snapshotted").isEqualTo(tablets).hasSize(3);
    cluster.inProcessMaster(0).snapshotCatalog();
  }

  private static Map<String, String> scanAll(NyalaClient client, NyalaTable table) {
    Map<String, String> out = new TreeMap<>();
    NyalaScanner scanner = client.newScannerBuilder(table).build();
    while (scanner.hasMoreRows()) {
      for (RowResult r : scanner.nextRows()) {
        out.put(r.getString("k"), r.getString("v"));
      }
    }
    scanner.close();
    return out;
  }

  /** Every regular file under {@code root} whose bytes contain the marker. */
  private static List<Path> filesContaining(Path root) throws IOException {
    byte[] marker = MARKER.getBytes(StandardCharsets.US_ASCII);
    List<Path> hits = new ArrayList<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        if (TestBytes.indexOf(Files.readAllBytes(p), marker) >= 0) {
          hits.add(p);
        }
      }
    }
    return hits;
  }

  private static List<Path> instanceFiles(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      List<Path> out = s.filter(p -> p.getFileName().toString().equals(ServerFs.INSTANCE))
          .toList();
      assertThat(out).as("instance files").hasSizeGreaterThanOrEqualTo(8);
      return out;
    }
  }

  /** Records every log line any server in this JVM writes (they go to stdout, not files). */
  private static final class AllLogs implements AutoCloseable {
    private final AbstractAppender appender;

    AllLogs(List<String> sink) {
      appender = new AbstractAppender("encryption-it", null, null, true, Property.EMPTY_ARRAY) {
        @Override
        public void append(LogEvent e) {
          String line = e.getMessage().getFormattedMessage()
              + (e.getThrown() == null ? "" : " / " + e.getThrown());
          synchronized (sink) {
            sink.add(line);
          }
        }
      };
      appender.start();
      LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
      ctx.getConfiguration().getRootLogger().addAppender(appender, Level.ALL, null);
      ctx.updateLoggers();
    }

    @Override
    public void close() {
      LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
      ctx.getConfiguration().getRootLogger().removeAppender(appender.getName());
      ctx.updateLoggers();
      appender.stop();
    }
  }
}
