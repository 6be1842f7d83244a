package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

  private record Run(int status, String out) {}

  private static Run nyala(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int status = NyalaCli.run(args);
      return new Run(status, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
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
  void benchPrintsBothModesAndTheSpeedup() {
    Run r = nyala("bench", "lbm-startup", "--batches", "4", "--blocks-per-batch", "50",
        "--dirs", "2", "--reopens", "1", "--work-dir", dir.resolve("b").toString());
    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("streaming: median").contains("in-memory: median")
        .contains("speedup:").contains("20 live blocks");
  }
}
