package io.nyala.common.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.security.FileKeyProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerFsTest {
  @TempDir
  Path dir;

  @Test
  void encryptedFormatKeepsTheInstanceFilePlainAndReopensWithTheSameKey() throws Exception {
    FileKeyProvider keys = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    Path wal = dir.resolve("wal");
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(dir.resolve("data")), "tserver", keys, 192);
    assertThat(fs.env().isEncrypting()).isTrue();
    InstancePB pb = InstancePB.parseFrom(Files.readAllBytes(wal.resolve(ServerFs.INSTANCE)));
    assertThat(pb.getServerKeyBits()).isEqualTo(192);
    assertThat(pb.getServerKeyVersion()).isEqualTo(1);
    assertThat(pb.getWrappedServerKey().size()).isEqualTo(24 + 8);

    Path secret = wal.resolve("secret");
    fs.env().replaceFile(secret, "NYALA-PLAINTEXT-CANARY".getBytes(StandardCharsets.UTF_8),
        OpenOptions.SENSITIVE);
    assertThat(new String(Files.readAllBytes(secret), StandardCharsets.ISO_8859_1))
        .doesNotContain("NYALA-PLAINTEXT-CANARY");
    ServerFs again = ServerFs.openOrFormat(wal, List.of(dir.resolve("data")), "tserver", keys, 256);
    assertThat(again.uuid()).isEqualTo(fs.uuid());
    assertThat(again.serverKey()).isEqualTo(fs.serverKey());
    assertThat(new String(again.env().readFile(secret, OpenOptions.SENSITIVE),
        StandardCharsets.UTF_8)).isEqualTo("NYALA-PLAINTEXT-CANARY");
  }

  @Test
  void rewrappingTheServerKeyMovesEveryInstanceFileAndKeepsTheKey() throws Exception {
    Path keyFile = dir.resolve("cluster.key");
    FileKeyProvider keys = FileKeyProvider.openOrCreate(keyFile, 256);
    Path wal = dir.resolve("wal");
    List<Path> data = List.of(dir.resolve("d1"), dir.resolve("d2"));
    ServerFs fs = ServerFs.openOrFormat(wal, data, "tserver", keys, 256);
    Path secret = wal.resolve("secret");
    fs.env().replaceFile(secret, "s".getBytes(StandardCharsets.UTF_8), OpenOptions.SENSITIVE);
    assertThat(fs.rewrapServerKey(keys)).as("nothing to do yet").isEqualTo(1);

    FileKeyProvider.addVersion(keyFile, 256);
    keys.reload();
    assertThat(fs.rewrapServerKey(keys)).isEqualTo(2);
    assertThat(fs.serverKeyVersion()).isEqualTo(2);
    for (Path d : List.of(wal, data.get(0), data.get(1))) {
      assertThat(ServerFs.readInstance(d.resolve(ServerFs.INSTANCE)).getServerKeyVersion())
          .as("instance file in %s", d).isEqualTo(2);
    }
    FileKeyProvider.retireVersionsBefore(keyFile, 2);
    ServerFs again = ServerFs.openOrFormat(wal, data, "tserver", FileKeyProvider.open(keyFile),
        256);
    assertThat(again.serverKey()).isEqualTo(fs.serverKey());
    assertThat(again.env().readFile(secret, OpenOptions.SENSITIVE))
        .isEqualTo("s".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anotherClusterKeyOrNoEncryptionFailsFastNamingTheFiles() {
    FileKeyProvider keys = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    FileKeyProvider other = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    Path wal = dir.resolve("wal");
    ServerFs.openOrFormat(wal, List.of(wal), "master", keys, 256);
    assertThatThrownBy(() -> ServerFs.openOrFormat(wal, List.of(wal), "master", other, 256))
        .hasMessageContaining(wal.resolve(ServerFs.INSTANCE).toString())
        .hasMessageContaining(dir.resolve("other.key").toString())
        .hasMessageContaining("server key");
    assertThatThrownBy(() -> ServerFs.openOrFormat(wal, List.of(wal), "master"))
        .hasMessageContaining("formatted with encryption");
  }

  @Test
  void encryptionCannotBeTurnedOnForAPlainServer() {
    Path wal = dir.resolve("wal");
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(wal), "master");
    assertThat(fs.env().isEncrypting()).isFalse();
    assertThat(fs.instance().getWrappedServerKey().isEmpty()).isTrue();
    FileKeyProvider keys = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 128);
    assertThatThrownBy(() -> ServerFs.openOrFormat(wal, List.of(wal), "master", keys, 128))
        .hasMessageContaining("formatted without encryption");
  }

  @ParameterizedTest
  @ValueSource(strings = {"master", "tserver"})
  void aDataDirWithoutInstanceAmongFormattedOnesStopsTheStartNamingIt(String role)
      throws Exception {
    Path wal = dir.resolve("wal");
    Path d1 = dir.resolve("d1");
    Path d2 = dir.resolve("d2");
    ServerFs.openOrFormat(wal, List.of(d1), role);
    Files.writeString(d1.resolve("data-of-the-server"), "x");

    assertThatThrownBy(() -> ServerFs.openOrFormat(wal, List.of(d1, d2), role))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE))
        .hasMessageContaining(d2.toString())
        .hasMessageContaining("no instance file")
        .hasMessageContaining("update_dirs");
    assertThat(d2.resolve(ServerFs.INSTANCE)).doesNotExist();
  }

  @Test
  void aWipedWalDirStopsTheStartNamingIt() throws Exception {
    Path wal = dir.resolve("wal");
    Path data = dir.resolve("data");
    ServerFs.openOrFormat(wal, List.of(data), "tserver");
    Files.createDirectories(data.resolve("blocks"));
    AtomicFiles.deleteTree(wal);
    Files.createDirectories(wal);

    assertThatThrownBy(() -> ServerFs.openOrFormat(wal, List.of(data), "tserver"))
        .hasMessageContaining(wal.toString())
        .hasMessageContaining("WAL dir")
        .hasMessageContaining("refusing to start");
    assertThat(wal.resolve(ServerFs.INSTANCE)).doesNotExist();
  }

  @Test
  void anInterruptedFirstFormatIsFinished() throws Exception {
    Path wal = dir.resolve("wal");
    Path data = dir.resolve("data");
    ServerFs first = ServerFs.openOrFormat(data, List.of(data), "tserver");
    // A crash after the first instance file, before the others: no dir holds any data yet.
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(data), "tserver");
    assertThat(fs.uuid()).isEqualTo(first.uuid());
    assertThat(ServerFs.readInstance(wal.resolve(ServerFs.INSTANCE)).getUuid())
        .isEqualTo(first.uuid());
  }
}
