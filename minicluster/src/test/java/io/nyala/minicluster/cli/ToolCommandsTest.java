package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.OpenOptions;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.security.FileKeyProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala pbc dump} and {@code fs dump-instance} on real files of an encrypting server. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ToolCommandsTest {
  @TempDir
  Path dir;

  private static CliRun nyala(String... args) {
    return CliRun.nyala(args);
  }

  @Test
  void dumpsAnEncryptedTabletMetadataFileAndAPlainInstanceFile() throws Exception {
    Path keyFile = dir.resolve("cluster.key");
    Path wal = dir.resolve("ts").resolve("wal");
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(dir.resolve("ts").resolve("data")),
        "tserver", FileKeyProvider.openOrCreate(keyFile, 256), 256);
    Path meta = wal.resolve("tablet-meta").resolve("0123456789abcdef0123456789abcdef");
    Files.createDirectories(meta.getParent());
    fs.env().replaceFile(meta, TabletMetadataPB.newBuilder()
        .setTabletId("0123456789abcdef0123456789abcdef").setTableName("secret_table_name")
        .build().toByteArray(), OpenOptions.SENSITIVE);
    assertThat(new String(Files.readAllBytes(meta), StandardCharsets.ISO_8859_1))
        .doesNotContain("secret_table_name");

    CliRun text = nyala("pbc", "dump", meta.toString(), "--encryption_key_file=" + keyFile);
    assertThat(text.status()).isZero();
    assertThat(text.out()).contains("(encrypted)").contains("table_name: \"secret_table_name\"");
    CliRun json = nyala("pbc", "dump", meta.toString(), "--json", "--fs_wal_dir=" + wal,
        "--encryption_key_file=" + keyFile);
    assertThat(json.out()).contains("\"tableName\": \"secret_table_name\"");
    assertThat(nyala("pbc", "dump", meta.toString()).status())
        .as("an encrypted file without the key file").isEqualTo(1);

    CliRun instance = nyala("pbc", "dump", wal.resolve(ServerFs.INSTANCE).toString());
    assertThat(instance.out()).contains("(plain)").contains("uuid: \"" + fs.uuid() + "\"")
        .contains("server_key_bits: 256");
    CliRun dumpInstance = nyala("fs", "dump-instance", "--fs_wal_dir=" + wal, "--json");
    assertThat(dumpInstance.out()).contains("\"uuid\": \"" + fs.uuid() + "\"");
  }

  @Test
  void benchCryptoPrintsFigures() {
    CliRun r = nyala("bench", "crypto", "--millis-per-case=5");
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("AES-256-CTR").contains("MB/s");
  }
}
