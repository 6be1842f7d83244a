package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tserver that creates replicas slowly is sent a bounded number of CreateTablet calls at
 * once (the rest wait at the master) rather than every tablet of a table at the same moment,
 * which queued past the calls' deadline on a real tserver; every replica is still created.
 */
class CreateTabletWindowTest {
  @TempDir Path dir;

  @Test
  @Timeout(60)
  void aSlowTserverGetsAtMostEightCallsAtOnceAndEveryTablet() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, "--tablet_creation_retry_ms=300");
        FakeTServer ts = new FakeTServer("slow")) {
      ts.createDelayMs = 100;
      ts.register(m.stub());
      CreateTableResponsePB resp = m.stub().createTable(Tables.create("burst", 40, 1));
      assertThat(resp.hasError()).as(resp.getError().getMessage()).isFalse();
      List<SysTabletEntryPB> tablets = m.master.catalog().catalog()
          .read(s -> s.tabletsOf(resp.getTableId()));
      assertThat(tablets).hasSize(40);

      await().atMost(Duration.ofSeconds(30)).until(() -> tablets.stream()
          .allMatch(t -> ts.createsOf(t.getTabletId()) >= 1));
      assertThat(ts.maxCreatesInProgress.get()).as("CreateTablet calls in progress at once")
          .isEqualTo(8);
    }
  }
}
