package io.nyala.tserver.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.tserver.replica.DeleteTimings;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The delete-tablet bench runs small: every flush writes a layer, no compaction merges them (more
 * flushes than a compaction waits for), the delete removes them and reports its steps.
 */
@Timeout(120)
class DeleteTabletBenchTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "encrypt={0}")
  @ValueSource(booleans = {false, true})
  void eightFlushesThenDelete(boolean encrypt) {
    AtomicLong done = new AtomicLong();
    DeleteTabletBench.Result r = DeleteTabletBench.run(
        new DeleteTabletBench.Options(8, encrypt, dir), done);
    assertThat(done.get()).isEqualTo(8);
    assertThat(r.flushedLayers()).isEqualTo(8);
    assertThat(r.diskLayers()).isEqualTo(8);
    assertThat(r.blocksDeleted()).isGreaterThanOrEqualTo(8 * 3);
    assertThat(r.filesDeleted()).isPositive();
    DeleteTimings t = r.steps();
    assertThat(List.of(t.mark(), t.group(), t.blocks(), t.files()))
        .allMatch(s -> s.wallNanos() >= 0 && s.cpuNanos() >= -1);
    assertThat(t.totalNanos()).isPositive();
    assertThat(r.warmupMillis()).isNotNegative();
  }
}
