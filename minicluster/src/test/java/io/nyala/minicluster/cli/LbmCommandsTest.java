package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nyala fs check} lists damage and {@code --repair} clears it; the bench runs small. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LbmCommandsTest {
  @TempDir
  Path dir;

  private record Run(int status, String out, String err) {}

  private static Run nyala(String... args) {
    PrintStream old = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int status = NyalaCommand.run(args);
      return new Run(status, buf.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
      System.setErr(oldErr);
    }
  }

  @Test
  void checkListsDamageAndRepairMakesTheNextCheckClean() throws Exception {
    Path data = dir.resolve("data");
    try (LogBlockManager bm = LogBlockManager.open(LbmOptions.defaults(Env.plain(),
        List.of(data)))) {
      try (BlockManager.CreationTransaction tx = bm.newCreation()) {
        BlockManager.WritableBlock b = tx.create();
        b.append(new byte[] {1, 2, 3});
        b.finalizeBlock();
        tx.commit();
      }
    }
    Path meta;
    try (var s = Files.list(data)) {
      meta = s.filter(p -> p.toString().endsWith(".metadata")).findFirst().orElseThrow();
    }
    long size = Files.size(meta);
    try (ReadWriteFile f = Env.plain().newReadWriteFile(meta, OpenOptions.NOT_SENSITIVE
        .withMode(OpenMode.OPEN_EXISTING))) {
      f.truncate(size + 4096);
    }
    Files.write(data.resolve("00000000000000ee.data"), new byte[0]);

    Run check = nyala("fs", "check", "--fs_data_dirs=" + data);
    assertThat(check.status()).isEqualTo(1);
    assertThat(check.out()).contains("live blocks: 1").contains("all-zero tail")
        .contains("00000000000000ee.data");
    assertThat(Files.size(meta)).isEqualTo(size + 4096);

    Run repair = nyala("fs", "check", "--repair", "--fs_data_dirs=" + data);
    assertThat(repair.out()).contains("repair: ").contains("truncated to " + size);
    Run again = nyala("fs", "check", "--fs_data_dirs=" + data);
    assertThat(again.status()).as(again.out()).isZero();
    assertThat(again.out()).doesNotContain("problem").doesNotContain("repair");
  }

  @Test
  void checkReadsEncryptedDirsWithTheServerKeyAndRepairsThem() throws Exception {
    Path wal = dir.resolve("wal");
    Path data = dir.resolve("data");
    Path keyFile = dir.resolve("cluster.key");
    ServerFs fs = ServerFs.openOrFormat(wal, List.of(data), "tserver",
        FileKeyProvider.openOrCreate(keyFile, 256), 256);
    try (LogBlockManager bm = LogBlockManager.open(LbmOptions.defaults(fs.env(),
        List.of(data)))) {
      for (int i = 0; i < 3; i++) {
        try (BlockManager.CreationTransaction tx = bm.newCreation()) {
          BlockManager.WritableBlock b = tx.create();
          b.append(new byte[100]);
          b.finalizeBlock();
          tx.commit();
        }
      }
    }
    Path meta;
    try (var s = Files.list(data)) {
      meta = s.filter(p -> p.toString().endsWith(".metadata")).findFirst().orElseThrow();
    }
    long size;
    try (ReadWriteFile f = fs.env().newReadWriteFile(meta, OpenOptions.SENSITIVE
        .withMode(OpenMode.OPEN_EXISTING))) {
      size = f.size();
      f.truncate(size + 4096);
    }
    String[] flags = {"--fs_wal_dir=" + wal, "--fs_data_dirs=" + data, "--encrypt_data_at_rest",
        "--encryption_key_file=" + keyFile};

    Run check = nyala(concat(new String[] {"fs", "check"}, flags));
    assertThat(check.status()).as(check.err()).isEqualTo(1);
    assertThat(check.out()).contains("live blocks: 3").contains("all-zero tail");
    Run repair = nyala(concat(new String[] {"fs", "check", "--repair"}, flags));
    assertThat(repair.out()).as(repair.err()).contains("truncated to " + size);
    Run again = nyala(concat(new String[] {"fs", "check"}, flags));
    assertThat(again.status()).as(again.out() + again.err()).isZero();
    assertThat(again.out()).contains("live blocks: 3").doesNotContain("problem");
  }

  @Test
  void checkOfEncryptedDirsWithAWrongOrMissingKeyNamesTheFileAndTheKey() {
    Path wal = dir.resolve("wal");
    Path data = dir.resolve("data");
    Path keyFile = dir.resolve("cluster.key");
    ServerFs.openOrFormat(wal, List.of(data), "tserver",
        FileKeyProvider.openOrCreate(keyFile, 256), 256);
    Path otherKey = dir.resolve("other.key");
    FileKeyProvider.openOrCreate(otherKey, 256);
    String walFlag = "--fs_wal_dir=" + wal;
    String dataFlag = "--fs_data_dirs=" + data;

    Run wrong = nyala("fs", "check", walFlag, dataFlag, "--encrypt_data_at_rest",
        "--encryption_key_file=" + otherKey);
    assertThat(wrong.status()).isEqualTo(1);
    assertThat(wrong.err()).contains(wal.resolve("instance").toString()).contains("server key");
    Run noKey = nyala("fs", "check", walFlag, dataFlag, "--encrypt_data_at_rest");
    assertThat(noKey.status()).isEqualTo(1);
    assertThat(noKey.err()).contains("--encryption_key_file");
    Run noFlag = nyala("fs", "check", walFlag, dataFlag);
    assertThat(noFlag.status()).isEqualTo(1);
    assertThat(noFlag.err()).contains(wal.resolve("instance").toString())
        .contains("--encrypt_data_at_rest");
    Run missing = nyala("fs", "check", walFlag, dataFlag, "--encrypt_data_at_rest",
        "--encryption_key_file=" + dir.resolve("nope.key"));
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).contains("nope.key");
  }

  private static String[] concat(String[] a, String[] b) {
    return java.util.stream.Stream.concat(Arrays.stream(a), Arrays.stream(b))
        .toArray(String[]::new);
  }

  @Test
  void benchPrintsBothModesAndTheSpeedup() {
    Run r = nyala("bench", "lbm-startup", "--batches", "4", "--blocks-per-batch", "50",
        "--dirs", "2", "--reopens", "1", "--work-dir", dir.resolve("b").toString());
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("streaming: median").contains("in-memory: median")
        .contains("speedup:").contains("20 live blocks");
  }
}
