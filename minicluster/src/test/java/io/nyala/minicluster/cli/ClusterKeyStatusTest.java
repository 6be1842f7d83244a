package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB.TabletServerKeyPB;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When {@code nyala cluster rotate-key} may stop waiting and {@code retire-key} may retire
 * (docs/encryption.md, "Rotating the cluster key"): servers that are down hold up retirement,
 * named, but not the wait; a master whose catalog log would replay an old entry holds up both.
 */
@Timeout(10)
class ClusterKeyStatusTest {
  private static final HostPort M1 = new HostPort("10.0.0.1", 7051);
  private static final HostPort M2 = new HostPort("10.0.0.2", 7051);

  private static GetClusterKeyStatusResponsePB master(String uuid, boolean leader,
      List<Integer> log, TabletServerKeyPB... tservers) {
    return GetClusterKeyStatusResponsePB.newBuilder().setMasterUuid(uuid)
        .setLeaderMaster(leader).setCurrentVersion(2).addAllProviderVersions(List.of(1, 2))
        .setInstanceKeyVersion(2).addAllLogKeyVersions(log)
        .addAllTabletServers(List.of(tservers)).build();
  }

  private static TabletServerKeyPB ts(String name, boolean live, int version) {
    return TabletServerKeyPB.newBuilder().setUuid(name + "-uuid").setName(name).setLive(live)
        .setKeyVersion(version).build();
  }

  private static ClusterKeyStatus status(GetClusterKeyStatusResponsePB m1,
      GetClusterKeyStatusResponsePB m2) {
    Map<HostPort, GetClusterKeyStatusResponsePB> answers = new LinkedHashMap<>();
    Map<HostPort, String> errors = new LinkedHashMap<>();
    answers.put(M1, m1);
    answers.put(M2, m2);
    if (m2 == null) {
      errors.put(M2, "UNAVAILABLE: connection refused");
    }
    return new ClusterKeyStatus(answers, errors);
  }

  @Test
  void aTabletServerDownDuringTheRotationHoldsUpRetirementNamedButNotTheWait() {
    ClusterKeyStatus s = status(master("m1", true, List.of(2), ts("ts-1", true, 2),
        ts("ts-2", false, 1), ts("plain", true, 0)), master("m2", false, List.of(2)));
    assertThat(s.pending(2, false)).isEmpty();
    assertThat(s.progress(2)).isEqualTo("tablet servers moved: 2/2, masters moved: 2/2, "
        + "catalog keys under older versions: 0");
    assertThat(s.pending(2, true)).singleElement().asString()
        .contains("tablet server ts-2 (ts-2-uuid, down) is at key version 1");
  }

  @Test
  void aMasterThatDoesNotAnswerHoldsUpOnlyRetirement() {
    ClusterKeyStatus s = status(master("m1", true, List.of(2)), null);
    assertThat(s.pending(2, false)).isEmpty();
    assertThat(s.pending(2, true)).singleElement().asString()
        .contains("master 10.0.0.2:7051 did not answer").contains("connection refused");
  }

  @Test
  void aMasterWhoseRestartWouldReplayAnOldEntryOrACatalogKeyBehindHoldsUpBoth() {
    GetClusterKeyStatusResponsePB leader = master("m1", true, List.of(2)).toBuilder()
        .setCatalogKeysBehind(3).build();
    ClusterKeyStatus s = status(leader, master("m2", false, List.of(1, 2)));
    assertThat(s.pending(2, false)).hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("master m2").contains("[1, 2]"))
        .anySatisfy(p -> assertThat(p).contains("3 tablet keys in the catalog"));
    assertThat(s.progress(2)).contains("masters moved: 1/2")
        .contains("catalog keys under older versions: 3");
  }
}
