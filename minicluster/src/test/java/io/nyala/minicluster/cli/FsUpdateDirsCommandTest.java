package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.fs.ServerFs;
import io.nyala.common.net.TestPorts;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala fs update_dirs}: the one way to add a data dir to a server, never while it runs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FsUpdateDirsCommandTest {
  @TempDir
  Path dir;

  private static CliRun nyala(String... args) {
    return CliRun.nyala(args);
  }

  private TserverOptions options(Path... dataDirs) throws IOException {
    TserverOptions o = new TserverOptions();
    o.fsWalDir = dir.resolve("wal").toString();
    o.fsDataDirs = java.util.Arrays.stream(dataDirs).map(Path::toString).toList();
    o.rpcBindAddresses = "127.0.0.1:0";
    o.raftBindAddress = "127.0.0.1:" + TestPorts.freePort();
    o.webserverPort = -1;
    o.serverName = "ts-update-dirs";
    return o;
  }

  private static TabletServer start(TserverOptions o) {
    TabletServer ts = new TabletServer(o);
    ts.start();
    return ts;
  }

  @Test
  void updateDirsAddsADataDirAndTheServerThenStartsOnIt() throws Exception {
    Path d1 = dir.resolve("d1");
    Path d2 = dir.resolve("d2");
    String uuid;
    try (TabletServer ts = start(options(d1))) {
      uuid = ts.uuid();
    }
    TserverOptions both = options(d1, d2);
    assertThatThrownBy(() -> start(both).close()).hasMessageContaining(d2.toString());

    CliRun add = nyala("fs", "update_dirs", "--fs_wal_dir=" + dir.resolve("wal"),
        "--fs_data_dirs=" + d1 + "," + d2);
    assertThat(add.status()).as("update_dirs: %s", add.err()).isZero();
    assertThat(add.out()).contains("added " + d2);
    assertThat(ServerFs.readInstance(d2.resolve(ServerFs.INSTANCE)).getUuid()).isEqualTo(uuid);

    Path d3 = dir.resolve("d3");
    try (TabletServer ts = start(both)) {
      assertThat(ts.uuid()).isEqualTo(uuid);
      CliRun whileRunning = nyala("fs", "update_dirs", "--fs_wal_dir=" + dir.resolve("wal"),
          "--fs_data_dirs=" + d1 + "," + d2 + "," + d3);
      assertThat(whileRunning.status()).isEqualTo(1);
      assertThat(whileRunning.err()).contains("in use");
      assertThat(d3.resolve(ServerFs.INSTANCE)).doesNotExist();
    }
  }

  @Test
  void updateDirsRefusesAWipedWalDirANonEmptyNewDirAndAWrongClusterKey() throws Exception {
    Path wal = dir.resolve("wal");
    Path d1 = dir.resolve("d1");
    Path keyFile = dir.resolve("cluster.key");
    ServerFs.openOrFormat(wal, List.of(d1), "tserver", FileKeyProvider.openOrCreate(keyFile, 256),
        256);
    Path full = Files.createDirectories(dir.resolve("full"));
    Files.writeString(full.resolve("someone-elses-file"), "x");
    CliRun nonEmpty = nyala("fs", "update_dirs", "--fs_wal_dir=" + wal,
        "--fs_data_dirs=" + d1 + "," + full, "--encrypt_data_at_rest",
        "--encryption_key_file=" + keyFile);
    assertThat(nonEmpty.status()).isEqualTo(1);
    assertThat(nonEmpty.err()).contains(full.toString()).contains("not a new dir");

    FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    Path d2 = dir.resolve("d2");
    CliRun wrongKey = nyala("fs", "update_dirs", "--fs_wal_dir=" + wal,
        "--fs_data_dirs=" + d1 + "," + d2, "--encrypt_data_at_rest",
        "--encryption_key_file=" + dir.resolve("other.key"));
    assertThat(wrongKey.status()).isEqualTo(1);
    assertThat(wrongKey.err()).contains("server key");
    assertThat(d2.resolve(ServerFs.INSTANCE)).doesNotExist();

    Files.delete(wal.resolve(ServerFs.INSTANCE));
    CliRun wipedWal = nyala("fs", "update_dirs", "--fs_wal_dir=" + wal, "--fs_data_dirs=" + d1,
        "--encrypt_data_at_rest", "--encryption_key_file=" + keyFile);
    assertThat(wipedWal.status()).isEqualTo(1);
    assertThat(wipedWal.err()).contains("WAL dir " + wal).contains("holds no instance file");
    assertThat(wal.resolve(ServerFs.INSTANCE)).doesNotExist();
  }
}
