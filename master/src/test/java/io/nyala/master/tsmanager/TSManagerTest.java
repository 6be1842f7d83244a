package io.nyala.master.tsmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.HostPort;
import io.nyala.common.proto.ServerRegistrationPB;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TSManagerTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final TSManager ts = new TSManager(now::get, 3000);

  private static ServerRegistrationPB reg(String uuid, int port) {
    return ServerRegistrationPB.newBuilder().setUuid(uuid).setName(uuid)
        .setRpcAddress(new HostPort("127.0.0.1", port).toPb()).build();
  }

  private void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  @Test
  void livenessFollowsHeartbeatAge() {
    TSDescriptor a = ts.heartbeat(reg("a", 1), 0);
    ts.heartbeat(reg("b", 2), 0);
    advanceMs(2000);
    ts.heartbeat(reg("b", 2), 5);
    advanceMs(1000);
    assertThat(ts.isLive(a)).as("exactly at the timeout").isTrue();
    advanceMs(1);
    assertThat(ts.isLive(a)).isFalse();
    assertThat(ts.live()).extracting(TSDescriptor::uuid).containsExactly("b");
    assertThat(ts.millisSinceHeartbeat(a)).isEqualTo(3001);
    assertThat(ts.get("b").numLiveTablets()).isEqualTo(5);

    // Re-registering with a new address revives it and updates the registration.
    TSDescriptor again = ts.heartbeat(reg("a", 9), 0);
    assertThat(again).isSameAs(a);
    assertThat(ts.isLive(a)).isTrue();
    assertThat(a.rpcAddress().port()).isEqualTo(9);
    assertThat(ts.all()).hasSize(2);
  }

  @Test
  void clientsSeeTheAddressATserverAdvertisedForThemAndPeersKeepTheirs() {
    HostPort published = new HostPort("localhost", 32771);
    TSDescriptor a = ts.heartbeat(reg("a", 7050).toBuilder()
        .setClientRpcAddress(published.toPb()).build(), 0);
    assertThat(HostPort.fromPb(a.toTsInfo().getRpcAddress())).isEqualTo(published);
    assertThat(a.rpcAddress()).as("the master and peers call the peer address")
        .isEqualTo(new HostPort("127.0.0.1", 7050));

    TSDescriptor b = ts.heartbeat(reg("b", 7052), 0);
    assertThat(HostPort.fromPb(b.toTsInfo().getRpcAddress()))
        .as("without a client address, clients get the peer address")
        .isEqualTo(new HostPort("127.0.0.1", 7052));
  }

  @Test
  void newLeadershipRestartsClocksAndAsksForFullReports() {
    TSDescriptor a = ts.heartbeat(reg("a", 1), 0);
    assertThat(ts.needsFullReport(a)).isTrue();
    ts.fullReportReceived(a);
    assertThat(ts.needsFullReport(a)).isFalse();
    advanceMs(10_000);
    assertThat(ts.isLive(a)).isFalse();
    ts.onBecomeLeader();
    assertThat(ts.isLive(a)).as("silence before the election does not count").isTrue();
    assertThat(ts.needsFullReport(a)).isTrue();
  }

  @Test
  void aTserverThatNeverHeartbeatsToThisLeaderIsDeadAfterTheTimeout() {
    advanceMs(60_000); // silence before the election does not count
    ts.onBecomeLeader();
    ts.heartbeat(reg("a", 1), 0);
    advanceMs(3000);
    assertThat(ts.isSilentSinceLeadership("gone")).as("exactly at the timeout").isFalse();
    advanceMs(1);
    assertThat(ts.isSilentSinceLeadership("gone"))
        .as("died before this master led: it never registers, and must still count as dead")
        .isTrue();
    assertThat(ts.isSilentSinceLeadership("a")).as("a registered one goes by its heartbeats")
        .isFalse();
  }

  @Test
  void resetLivenessClocksStartsEveryClockAtTheGivenTime() {
    TSDescriptor a = ts.heartbeat(reg("a", 1), 0);
    ts.fullReportReceived(a);
    advanceMs(2500);
    TSDescriptor b = ts.heartbeat(reg("b", 2), 0);
    advanceMs(2500);
    long resetAt = now.get();
    ts.resetLivenessClocks(resetAt);
    assertThat(ts.millisSinceHeartbeat(a)).isZero();
    assertThat(ts.millisSinceHeartbeat(b)).isZero();
    advanceMs(3001);
    assertThat(ts.live()).as("both silent since the reset").isEmpty();
    assertThat(ts.needsFullReport(a)).as("a reset alone asks for no report").isFalse();
  }

  @Test
  void rejectsRegistrationsWithoutIdentity() {
    assertThatThrownBy(() -> ts.heartbeat(ServerRegistrationPB.getDefaultInstance(), 0))
        .hasMessageContaining("uuid");
    assertThatThrownBy(() -> ts.heartbeat(ServerRegistrationPB.newBuilder().setUuid("x")
        .build(), 0)).hasMessageContaining("x").hasMessageContaining("RPC address");
  }
}
