package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOperations;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class BatchSplitTest {
  private static final int LIMIT = 600;
  private final ClientFixture f = new ClientFixture(1, 1, b -> b.maxWriteRequestBytes(LIMIT));

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void aTabletsBatchIsSplitUnderTheByteLimitInOrder() {
    NyalaTable t = f.createTable("m", 1, 1);
    NyalaSession s = f.client.newSession();
    s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    for (long k = 0; k < 100; k++) {
      s.apply(insert(t, k, "value-" + "x".repeat((int) (k % 30))));
    }
    assertThat(s.flush()).noneMatch(OperationResponse::hasRowError);

    FakeTabletServer ts = f.ts(0);
    assertThat(ts.writes.size()).isGreaterThan(5);
    List<Long> keys = new ArrayList<>();
    long lastSeq = Long.MIN_VALUE;
    for (WriteRequestPB w : ts.writes) {
      assertThat(w.getRowOperations().getRows().size()).isLessThanOrEqualTo(LIMIT);
      assertThat(w.getSeqNo()).isGreaterThan(lastSeq);
      lastSeq = w.getSeqNo();
      for (RowOperations.Op op : RowOperations.decode(t.getSchema(), w.getRowOperations())) {
        keys.add((Long) op.row().get("key"));
      }
    }
    assertThat(keys).hasSize(100).isSorted();
    // Requests are filled, not cut early: all but the last hold more than half the limit.
    for (int i = 0; i < ts.writes.size() - 1; i++) {
      assertThat(ts.writes.get(i).getRowOperations().getRows().size())
          .isGreaterThan(LIMIT / 2);
    }
  }

  @Test
  void aRowLargerThanTheLimitFailsAloneNamingTheLimit() {
    NyalaTable t = f.createTable("m", 1, 1);
    NyalaSession s = f.client.newSession();
    s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    s.apply(insert(t, 1, "small"));
    s.apply(insert(t, 2, "y".repeat(LIMIT)));
    s.apply(insert(t, 3, "small"));

    List<OperationResponse> rs = s.flush();

    assertThat(rs.get(0).hasRowError()).isFalse();
    assertThat(rs.get(2).hasRowError()).isFalse();
    ErrorStatus big = rs.get(1).getRowError().getErrorStatus();
    assertThat(big.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(big.message()).contains("'m'", String.valueOf(LIMIT));
    assertThat(f.tablet("m", 0).rowCount()).isEqualTo(2);
  }
}
