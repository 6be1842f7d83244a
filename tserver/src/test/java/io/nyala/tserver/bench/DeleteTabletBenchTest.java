package io.nyala.tserver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The delete-tablet bench runs small: every flush writes a layer, the delete removes them. */
@Timeout(120)
class DeleteTabletBenchTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "encrypt={0}")
  @ValueSource(booleans = {false, true})
  void fiveFlushesThenDelete(boolean encrypt) {
    AtomicLong done = new AtomicLong();
    DeleteTabletBench.Result r = DeleteTabletBench.run(
        new DeleteTabletBench.Options(5, encrypt, dir), done);
    assertThat(done.get()).isEqualTo(5);
    assertThat(r.flushedLayers()).isEqualTo(5);
    assertThat(r.blocksDeleted()).isPositive();
    assertThat(r.filesDeleted()).isPositive();
  }
}
