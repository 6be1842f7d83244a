package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.nyala.client.fake.FakeMaster;
import io.nyala.client.fake.FakeTablet;
import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WriteTest {
  private final ClientFixture f = new ClientFixture(1, 3);

  @AfterEach
  void tearDown() {
    f.close();
  }

  private static WriteResponsePB error(NyalaException e) {
    return WriteResponsePB.newBuilder().setError(e.toPb()).build();
  }

  private FakeMaster master() {
    return f.cluster.masters().get(0);
  }

  @Test
  void retriesKeepTheBatchsSeqNo() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTabletServer leader = f.tablet("m", 0).leader();
    leader.onNextWrite((ts, req) -> error(NyalaException.unavailable("tablet is bootstrapping")));
    leader.onNextWrite((ts, req) -> error(NyalaException.timedOut("replication timed out")));

    OperationResponse r = f.client.newSession().apply(insert(t, 1, "a"));

    assertThat(r.hasRowError()).isFalse();
    assertThat(leader.writes).hasSize(3);
    WriteRequestPB first = leader.writes.get(0);
    for (WriteRequestPB w : leader.writes) {
      assertThat(w.getSeqNo()).isEqualTo(first.getSeqNo());
      assertThat(w.getClientId()).isEqualTo(first.getClientId());
    }
    assertThat(first.getClientId().size()).isEqualTo(16);

    f.client.newSession().apply(insert(t, 2, "b"));
    assertThat(leader.writes.get(3).getSeqNo()).isGreaterThan(first.getSeqNo());
  }

  @Test
  void aLostResponseIsRetriedAndAppliedOnce() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    // Apply the write, then fail the call as if the connection dropped before the answer.
    tablet.leader().onNextWrite((ts, req) -> {
      ts.applyWrite(req);
      throw Status.UNAVAILABLE.withDescription("connection reset").asRuntimeException();
    });

    OperationResponse r = f.client.newSession().apply(insert(t, 1, "a"));

    // The retry carried the same seq_no, so the tablet answered from its retry cache instead of
    // reporting the row as ALREADY_PRESENT.
    assertThat(r.hasRowError()).as("%s", r).isFalse();
    assertThat(tablet.appliedWrites()).isEqualTo(1);
    assertThat(tablet.rowCount()).isEqualTo(1);
  }

  @Test
  void anUnansweredAttemptTimesOutAndIsRetriedLongBeforeTheDeadline() {
    try (ClientFixture g = new ClientFixture(1, 3, b -> b.defaultRpcTimeoutMs(300))) {
      NyalaTable t = g.createTable("m", 1, 3);
      FakeTablet tablet = g.tablet("m", 0);
      tablet.leader().withholdNextWriteAnswers(2);

      // Without a per-attempt timeout the first attempt would hold the call until the 10 s
      // operation deadline and end it with TIMED_OUT.
      OperationResponse r = g.client.newSession().apply(insert(t, 1, "a"));

      assertThat(r.hasRowError()).as("%s", r).isFalse();
      assertThat(tablet.appliedWrites()).isEqualTo(1);
      assertThat(tablet.leader().writes).hasSizeGreaterThanOrEqualTo(3)
          .extracting(WriteRequestPB::getSeqNo).containsOnly(tablet.leader().writes.get(0)
              .getSeqNo());
    }
  }

  @Test
  void givesUpAfterTheTimeoutNamingTabletAndLastError() {
    NyalaTable t = f.createTable("m", 1, 3);
    f.tablet("m", 0).leader().onEveryWrite(
        (ts, req) -> error(NyalaException.unavailable("memory limit exceeded")));
    NyalaSession s = f.client.newSession();
    // Long enough for an answered attempt even on a loaded box (the first call also connects):
    // the error the timeout reports must be the server's, not the attempt's own deadline.
    s.setTimeoutMillis(2000);

    OperationResponse r = s.apply(insert(t, 1, "a"));

    assertThat(r.hasRowError()).isTrue();
    ErrorStatus st = r.getRowError().getErrorStatus();
    assertThat(st.code()).isEqualTo(StatusCode.TIMED_OUT);
    assertThat(st.message()).contains(f.tablet("m", 0).id(), "'m'", "memory limit exceeded");
    assertThat(r.getRowError().getOperation()).isSameAs(r.getOperation());
  }

  @Test
  void notLeaderWithHintGoesToTheNewLeaderWithoutAskingTheMaster() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    f.client.newSession().apply(insert(t, 1, "a"));
    int lookups = master().calls("GetTableLocations");
    tablet.setLeader(tablet.replicas().get(1));

    assertThat(f.client.newSession().apply(insert(t, 2, "b")).hasRowError()).isFalse();

    assertThat(master().calls("GetTableLocations")).isEqualTo(lookups);
    assertThat(tablet.replicas().get(1).writes).hasSize(1);
  }

  @Test
  void notLeaderWithoutHintInvalidatesTheCacheAndRefetches() {
    f.cluster.setLeaderHints(false);
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    f.client.newSession().apply(insert(t, 1, "a"));
    assertThat(master().calls("GetTableLocations")).isEqualTo(1);
    tablet.setLeader(tablet.replicas().get(2));

    assertThat(f.client.newSession().apply(insert(t, 2, "b")).hasRowError()).isFalse();

    assertThat(master().calls("GetTableLocations")).isEqualTo(2);
    assertThat(tablet.replicas().get(2).writes).hasSize(1);
    assertThat(tablet.rowCount()).isEqualTo(2);
  }

  /**
   * A hibernated tablet's locations name no leader: the write goes to a replica, which wakes the
   * group and answers NOT_LEADER naming the new leader; the client follows it without asking
   * the master again (docs/dense-nodes.md).
   */
  @Test
  void noLeaderInLocationsWritesToAReplicaThenFollowsItsHint() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    tablet.setNoLeaderInMaster(true);
    tablet.setLeader(tablet.replicas().get(2));

    assertThat(f.client.newSession().apply(insert(t, 1, "a")).hasRowError()).isFalse();

    assertThat(tablet.replicas().get(0).writes).hasSize(1);
    assertThat(tablet.replicas().get(2).writes).hasSize(1);
    assertThat(tablet.rowCount()).isEqualTo(1);
    assertThat(master().calls("GetTableLocations")).isEqualTo(1);
  }

  /**
   * While the woken group has no leader yet, the replica answers SERVICE_UNAVAILABLE; the client
   * retries it there and then follows its hint once a leader is elected.
   */
  @Test
  void aReplicaWakingItsGroupIsRetriedUntilItNamesTheLeader() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    tablet.setNoLeaderInMaster(true);
    tablet.setLeader(tablet.replicas().get(1));
    FakeTabletServer woken = tablet.replicas().get(0);
    for (int i = 0; i < 2; i++) {
      woken.onNextWrite((ts, req) -> error(NyalaException.unavailable(
          "tablet %s: waking its group, no leader yet", tablet.id())));
    }

    OperationResponse r = f.client.newSession().apply(insert(t, 1, "a"));

    assertThat(r.hasRowError()).as("%s", r).isFalse();
    assertThat(woken.writes).hasSize(3);
    assertThat(tablet.replicas().get(1).writes).hasSize(1);
    assertThat(tablet.replicas().get(2).writes).isEmpty();
    assertThat(tablet.rowCount()).isEqualTo(1);
  }

  @Test
  void anUnreachableLeaderIsSkippedForTheReplicaThatNowLeads() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    f.client.newSession().apply(insert(t, 1, "a"));
    FakeTabletServer old = tablet.leader();
    old.stop();
    tablet.setLeader(tablet.replicas().get(1));
    tablet.setStaleMasterView(old);

    assertThat(f.client.newSession().apply(insert(t, 2, "b")).hasRowError()).isFalse();
    assertThat(tablet.rowCount()).isEqualTo(2);
  }

  @Test
  void perRowErrorsMapToTheirOperationsAcrossTablets() {
    NyalaTable t = f.createTable("m", 4, 1);
    f.insertRange(t, 0, 10);
    NyalaSession s = f.client.newSession();
    s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    List<Operation> ops = new ArrayList<>();
    for (long k = 14; k >= 5; k--) {
      ops.add(insert(t, k, "again"));
    }
    Operation missing = t.newUpdate();
    missing.getRow().addLong("key", 99).addString("val", "x");
    ops.add(missing);
    ops.forEach(s::apply);

    List<OperationResponse> rs = s.flush();

    assertThat(rs).hasSize(ops.size());
    for (int i = 0; i < rs.size(); i++) {
      OperationResponse r = rs.get(i);
      assertThat(r.getOperation()).isSameAs(ops.get(i));
      long key = (Long) ops.get(i).getRow().get("key");
      if (key == 99) {
        assertThat(r.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_FOUND);
      } else if (key < 10) {
        assertThat(r.getRowError().getOperation()).isSameAs(ops.get(i));
        assertThat(r.getRowError().getErrorStatus().isAlreadyPresent()).isTrue();
        assertThat(r.getRowError().getErrorStatus().message()).contains("key=" + key);
      } else {
        assertThat(r.hasRowError()).as("key %d", key).isFalse();
      }
    }
    long written = f.cluster.table("m").tablets().stream().filter(x -> x.rowCount() > 0)
        .count();
    assertThat(written).as("rows spread over several tablets").isGreaterThan(1);
  }

  @Test
  void aWholeRequestErrorFailsEveryRowOfTheBatch() {
    NyalaTable t = f.createTable("m", 1, 1);
    f.tablet("m", 0).leader().onNextWrite((ts, req) ->
        error(NyalaException.invalidArgument("schema version 1 of table 'm' is stale")));
    NyalaSession s = f.client.newSession();
    s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    s.apply(insert(t, 1, "a"));
    s.apply(insert(t, 2, "b"));

    List<OperationResponse> rs = s.flush();

    assertThat(rs).allSatisfy(r -> {
      assertThat(r.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
      assertThat(r.getRowError().getErrorStatus().message()).contains("stale");
    });
    assertThat(f.tablet("m", 0).leader().writes).hasSize(1);
  }
}
