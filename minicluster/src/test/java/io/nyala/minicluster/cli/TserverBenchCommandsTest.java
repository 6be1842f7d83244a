package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The tablet server benchmarks run small from the command line and print their figures. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TserverBenchCommandsTest {
  @TempDir
  Path dir;

  private static String nyala(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      assertThat(NyalaCommand.run(args)).isZero();
      return buf.toString(StandardCharsets.UTF_8);
    } finally {
      System.setOut(old);
    }
  }

  @Test
  void walAppendPrintsTimeAndRatesAndVerifies() {
    String out = nyala("bench", "wal-append", "--writers", "2", "--batches-per-writer", "100",
        "--ops-per-batch", "3", "--inflight", "4", "--verify", "--work-dir", dir.toString());
    assertThat(out).containsPattern("Time spent appending 200 batches \\(2 writers\\): \\d+ ms")
        .contains("batches/s: ").contains("ops/s: ").containsPattern("Raft entries: \\d+ ")
        .contains("verified: 200 write batches in the Raft log, in order per writer");
  }

  @Test
  void writePathAllocPrintsBytesPerOpAndTheCopies() {
    String out = nyala("bench", "write-path", "--alloc", "--ops", "300", "--warmup-ops", "50",
        "--ops-per-batch", "3", "--work-dir", dir.toString());
    assertThat(out).contains("write-path: 300 ops in 100 requests").contains("300 applied")
        .containsPattern("allocated per applied op: \\d+ bytes")
        .contains("row payload copies from RPC receipt to the Raft log write: 2");
  }

  @Test
  void deleteTabletPrintsTheDeleteTimeStepByStep() {
    String out = nyala("bench", "delete-tablet", "--flushes", "5", "--work-dir", dir.toString());
    assertThat(out).containsPattern(
        "delete-tablet: 5 flushes, plain: deleted in \\d+ ms \\(5 layers, \\d+ blocks, \\d+ "
            + "files\\)");
    assertThat(out).containsPattern("mark DELETING [\\d.]+ ms \\(cpu [\\d.]+\\), group removal "
        + "[\\d.]+ ms \\(cpu [\\d.]+\\), block deletion [\\d.]+ ms \\(cpu [\\d.]+\\), files");
  }
}
