package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.client.fake.FakeTablet;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class FlushModeTest {
  private final ClientFixture f = new ClientFixture(1, 1);
  private NyalaTable table;
  private FakeTablet tablet;
  private NyalaSession session;

  @BeforeEach
  void setUp() {
    table = f.createTable("m", 1, 1);
    tablet = f.tablet("m", 0);
    session = f.client.newSession();
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void autoFlushSyncWritesEachApplyAndReturnsItsResponse() {
    assertThat(session.getFlushMode()).isEqualTo(NyalaSession.FlushMode.AUTO_FLUSH_SYNC);
    OperationResponse ok = session.apply(insert(table, 1, "a"));
    assertThat(ok.hasRowError()).isFalse();
    assertThat(ok.getWriteIndex()).isPositive();
    assertThat(tablet.rowCount()).isEqualTo(1);

    OperationResponse dup = session.apply(insert(table, 1, "b"));
    assertThat(dup.getRowError().getErrorStatus().isAlreadyPresent()).isTrue();
    assertThat(session.flush()).isEmpty();
  }

  @Test
  void manualFlushBuffersUntilFlush() {
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.setMutationBufferSpace(3);
    for (long k = 0; k < 3; k++) {
      assertThat(session.apply(insert(table, k, "v"))).isNull();
    }
    assertThat(session.countBufferedOperations()).isEqualTo(3);
    assertThat(tablet.leader().writes).isEmpty();
    assertThatThrownBy(() -> session.apply(insert(table, 3, "v")))
        .isInstanceOfSatisfying(NyalaException.class, e -> {
          assertThat(e.code()).isEqualTo(StatusCode.ILLEGAL_STATE);
          assertThat(e.getMessage()).contains("buffer is full");
        });

    List<OperationResponse> rs = session.flush();

    assertThat(rs).hasSize(3).noneMatch(OperationResponse::hasRowError);
    assertThat(tablet.rowCount()).isEqualTo(3);
    assertThat(tablet.leader().writes).hasSize(1);
    assertThat(session.hasPendingOperations()).isFalse();
  }

  @Test
  void autoFlushBackgroundFlushesFullBuffersAndCollectsRowErrors() {
    f.insertRange(table, 100, 101);
    session.setFlushMode(NyalaSession.FlushMode.AUTO_FLUSH_BACKGROUND);
    session.setMutationBufferSpace(5);
    session.setFlushInterval(60_000);
    for (long k = 0; k < 11; k++) {
      assertThat(session.apply(insert(table, k == 7 ? 100 : k, "v"))).isNull();
    }
    // Two full buffers went out on their own; the eleventh row waits for the interval.
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet.rowCount() == 1 + 9);
    assertThat(session.countBufferedOperations()).isEqualTo(1);
    assertThat(session.countPendingErrors()).isEqualTo(1);

    session.flush();
    assertThat(tablet.rowCount()).isEqualTo(11);
    RowErrorsAndOverflowStatus errors = session.getPendingErrors();
    assertThat(errors.isOverflowed()).isFalse();
    assertThat(errors.getRowErrors()).singleElement().satisfies(e -> {
      assertThat(e.getErrorStatus().isAlreadyPresent()).isTrue();
      assertThat(e.getOperation().getRow().get("key")).isEqualTo(100L);
    });
    assertThat(session.countPendingErrors()).isZero();
  }

  @Test
  void autoFlushBackgroundFlushesAfterTheInterval() {
    session.setFlushMode(NyalaSession.FlushMode.AUTO_FLUSH_BACKGROUND);
    session.setFlushInterval(20);
    session.apply(insert(table, 1, "a"));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet.rowCount() == 1);
    assertThat(session.countBufferedOperations()).isZero();
  }

  @Test
  void closeFlushesAndThenRefusesApplies() {
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.apply(insert(table, 1, "a"));
    session.close();
    assertThat(tablet.rowCount()).isEqualTo(1);
    assertThat(session.isClosed()).isTrue();
    assertThatThrownBy(() -> session.apply(insert(table, 2, "b")))
        .hasMessageContaining("session is closed");
  }

  @Test
  void operationsOnOneKeyApplyInOrderAcrossBatches() {
    session.setFlushMode(NyalaSession.FlushMode.AUTO_FLUSH_BACKGROUND);
    session.setMutationBufferSpace(1);
    session.apply(insert(table, 1, "first"));
    Operation update = table.newUpdate();
    update.getRow().addLong("key", 1).addString("val", "second");
    session.apply(update);
    Operation delete = table.newDelete();
    delete.getRow().addLong("key", 1);
    session.apply(delete);
    session.apply(insert(table, 1, "last"));
    session.flush();
    assertThat(session.getPendingErrors().getRowErrors()).isEmpty();
    List<String> vals = new java.util.ArrayList<>();
    try (NyalaScanner sc = table.newScannerBuilder().build()) {
      for (RowResult r : sc) {
        vals.add(r.getString("val"));
      }
    }
    assertThat(vals).containsExactly("last");
  }
}
