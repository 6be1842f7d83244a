package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.fake.FakeTablet;
import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.WriteResponsePB;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's statistics (docs/architecture.md, "Client statistics") against scripted fake
 * servers: each figure is the exact count of what the fakes saw.
 */
@Timeout(30)
class ClientStatisticsTest {
  private final ClientFixture f = new ClientFixture(1, 3);

  @AfterEach
  void tearDown() {
    f.close();
  }

  private static WriteResponsePB error(NyalaException e) {
    return WriteResponsePB.newBuilder().setError(e.toPb()).build();
  }

  private static long scanAll(NyalaTable t) {
    long rows = 0;
    try (NyalaScanner s = t.newScannerBuilder().batchSizeRows(7).build()) {
      while (s.hasMoreRows()) {
        rows += s.nextRows().getNumRows();
      }
    }
    return rows;
  }

  @Test
  void countsEveryRowWrittenAndScannedPerTablet() {
    NyalaTable t = f.createTable("m", 4, 1);
    ClientStatistics before = f.client.getStatistics();
    f.insertRange(t, 0, 100);
    assertThat(scanAll(t)).isEqualTo(100);

    ClientStatistics s = f.client.getStatistics();
    assertThat(s.writeOpsApplied()).isEqualTo(100);
    assertThat(s.writeOpsAcknowledged()).isEqualTo(100);
    assertThat(s.writeRowErrors()).isZero();
    long requestBytes = f.cluster.tservers().stream().flatMap(ts -> ts.writes.stream())
        .mapToLong(w -> w.getSerializedSize()).sum();
    assertThat(s.writeBytesSent()).isEqualTo(requestBytes);
    assertThat(s.scannersOpened()).isEqualTo(f.cluster.scanOpens.size());
    assertThat(s.scanRowsReturned()).isEqualTo(100);
    assertThat(s.scanBytesReturned()).isPositive();
    long scanCalls = f.cluster.tservers().stream().mapToLong(ts -> ts.scans.size()).sum();
    long writeCalls = f.cluster.tservers().stream().mapToLong(ts -> ts.writes.size()).sum();
    assertThat(s.rpcCalls()).isEqualTo(scanCalls + writeCalls);
    assertThat(s.rpcRetries()).isZero();
    assertThat(s.rpcFailures()).isEmpty();
    for (FakeTablet tablet : f.cluster.table("m").tablets()) {
      TabletStatistics ts = s.getTabletStatistics(tablet.id());
      assertThat(ts.ops()).as("ops of %s", tablet.id()).isEqualTo(tablet.rowCount());
      assertThat(ts.errors()).isZero();
    }
    // A snapshot does not change afterwards.
    assertThat(before.writeOpsApplied()).isZero();
    assertThat(before.tablets()).isEmpty();
    assertThat(s.getTabletStatistics("no-such-tablet"))
        .isEqualTo(new TabletStatistics("no-such-tablet", 0, 0, 0));
  }

  @Test
  void countsRetriesAndFailuresByCodeAndTablet() {
    NyalaTable t = f.createTable("m", 1, 3);
    FakeTablet tablet = f.tablet("m", 0);
    FakeTabletServer leader = tablet.leader();
    leader.onNextWrite((ts, req) -> error(NyalaException.unavailable("tablet is bootstrapping")));
    leader.onNextWrite((ts, req) -> error(NyalaException.timedOut("replication timed out")));

    assertThat(f.client.newSession().apply(insert(t, 1, "a")).hasRowError()).isFalse();

    ClientStatistics s = f.client.getStatistics();
    assertThat(leader.writes).hasSize(3);
    assertThat(s.rpcCalls()).isEqualTo(3);
    assertThat(s.rpcRetries()).isEqualTo(2);
    assertThat(s.rpcFailures(StatusCode.SERVICE_UNAVAILABLE)).isEqualTo(1);
    assertThat(s.rpcFailures(StatusCode.TIMED_OUT)).isEqualTo(1);
    assertThat(s.rpcFailures(StatusCode.NOT_LEADER)).isZero();
    assertThat(s.writeBytesSent()).isEqualTo(3L * leader.writes.get(0).getSerializedSize());
    assertThat(s.getTabletStatistics(tablet.id()))
        .isEqualTo(new TabletStatistics(tablet.id(), 1, 0, 2));
    assertThat(s.writeOpsAcknowledged()).isEqualTo(1);
  }

  @Test
  void countsRowErrorsAndFailedRequestsAsErrors() {
    NyalaTable t = f.createTable("m", 1, 1);
    FakeTablet tablet = f.tablet("m", 0);
    f.insertRange(t, 0, 3);
    NyalaSession session = f.client.newSession();
    assertThat(session.apply(insert(t, 1, "dup")).hasRowError()).isTrue();
    tablet.leader().onNextWrite((ts, req) ->
        error(NyalaException.invalidArgument("schema version 9 is not the tablet's")));
    session.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
    session.apply(insert(t, 10, "x"));
    session.apply(insert(t, 11, "y"));
    List<OperationResponse> failed = session.flush();
    assertThat(failed).allMatch(OperationResponse::hasRowError);

    ClientStatistics s = f.client.getStatistics();
    assertThat(s.writeOpsApplied()).isEqualTo(6);
    assertThat(s.writeOpsAcknowledged()).isEqualTo(3);
    assertThat(s.writeRowErrors()).isEqualTo(3);
    assertThat(s.rpcFailures(StatusCode.INVALID_ARGUMENT)).isEqualTo(1);
    assertThat(s.rpcRetries()).isZero();
    assertThat(s.getTabletStatistics(tablet.id()))
        .isEqualTo(new TabletStatistics(tablet.id(), 6, 3, 0));
  }

  @Test
  void listsTabletServersLiveAndDead() {
    f.createTable("m", 2, 3);
    List<TabletServerInfo> servers = f.client.listTabletServers();
    assertThat(servers).extracting(TabletServerInfo::uuid).containsExactlyElementsOf(
        f.cluster.tservers().stream().map(FakeTabletServer::uuid).toList());
    assertThat(servers).allMatch(TabletServerInfo::live);
    assertThat(servers.get(0).rpcAddress()).isEqualTo(f.ts(0).address());
    assertThat(servers).allMatch(s -> s.numReplicas() == 2);

    f.ts(2).stop();

    assertThat(f.client.listTabletServers()).filteredOn(TabletServerInfo::live).hasSize(2);
  }

  @Test
  void tableStatisticsSumTheLeadersEstimates() {
    NyalaTable t = f.createTable("m", 4, 3);
    f.createTable("other", 1, 3);
    f.insertRange(t, 0, 100);

    TableStatistics s = f.client.getTableStatistics("m");

    assertThat(s).isEqualTo(new TableStatistics("m", 100, 100 * 100, 4, 4));
    assertThat(f.client.getTableStatistics("other").liveRowCount()).isZero();
    assertThatThrownBy(() -> f.client.getTableStatistics("missing"))
        .isInstanceOf(NyalaException.class).hasMessageContaining("table 'missing' not found")
        .extracting(e -> ((NyalaException) e).code()).isEqualTo(StatusCode.NOT_FOUND);
  }
}
