package io.nyala.tserver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The WAL append bench runs small, and its log verification sees every batch in order. */
@Timeout(120)
class WalAppendBenchTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "fsync={0} encrypt={1}")
  @CsvSource({"false, false", "true, true"})
  void tinyRunVerifiesTheLog(boolean fsync, boolean encrypt) {
    AtomicLong done = new AtomicLong();
    WalAppendBench.Result r = WalAppendBench.run(new WalAppendBench.Options(3, 150, 2, 8, fsync,
        encrypt, true, dir), done);
    assertThat(done.get()).isEqualTo(450);
    assertThat(r.batches()).isEqualTo(450);
    assertThat(r.ops()).isEqualTo(900);
    assertThat(r.verifiedEntries()).isEqualTo(450);
  }
}
