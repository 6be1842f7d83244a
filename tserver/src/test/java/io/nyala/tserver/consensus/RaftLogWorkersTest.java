package io.nyala.tserver.consensus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.tserver.bench.SingleTabletServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the delete path relies on in Ratis: the log worker thread of a division is found by its
 * name, and an interrupt ends its loop at once (rather than at its next one-second poll).
 */
@Timeout(60)
class RaftLogWorkersTest {
  @TempDir
  Path dir;

  @Test
  void findsTheLogWorkerOfALiveDivisionAndAnInterruptEndsItsLoop() {
    try (SingleTabletServer ts = SingleTabletServer.start(dir, false, false, false)) {
      RaftGroupMemberId member = ts.division().getMemberId();
      Thread worker = RaftLogWorkers.find(member);
      assertThat(worker).as("log worker of %s", member).isNotNull();
      assertThat(runsLogWorkerLoop(worker)).isTrue();

      assertThat(RaftLogWorkers.endForRemoval(member)).isTrue();
      // The loop returns; the executor's thread itself lives until the log closes it.
      await().atMost(Duration.ofSeconds(30)).until(() -> !runsLogWorkerLoop(worker));
    }
  }

  @Test
  void anUnknownDivisionHasNoLogWorker() {
    RaftGroupMemberId nobody = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("nobody"),
        RaftIds.groupId(RaftIds.newId()));
    assertThat(RaftLogWorkers.find(nobody)).isNull();
    assertThat(RaftLogWorkers.endForRemoval(nobody)).isFalse();
  }

  private static boolean runsLogWorkerLoop(Thread t) {
    return Arrays.stream(t.getStackTrace())
        .anyMatch(f -> f.getClassName().endsWith(".SegmentedRaftLogWorker"));
  }
}
