package io.nyala.tserver.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.tserver.TserverFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A HIBERNATED replica's report is built once and reused while its metadata and schema stay the
 * same (every heartbeat reports every replica: docs/dense-nodes.md), and built anew when either
 * changes or the replica fails.
 */
@Timeout(10)
class ReplicaReportsTest {
  private static final String TABLET = "0123456789abcdef0123456789abcdef";

  @Test
  void aColdReplicasReportIsReusedUntilItsMetadataChanges() {
    TabletReplica r = new TabletReplica(cold(2, 9), null, null, null, null, null);
    ReportedTabletPB first = r.report(null);
    assertThat(first.getState()).isEqualTo(TabletStatePB.HIBERNATED);
    assertThat(first.getTerm()).isEqualTo(2);
    assertThat(first.getConfigPeerUuidsList()).containsExactly("a", "b", "c");
    assertThat(r.report(null)).isSameAs(first);

    synchronized (r) {
      r.metadataPersisted(cold(3, 12));
    }
    ReportedTabletPB second = r.report(null);
    assertThat(second).isNotSameAs(first);
    assertThat(second.getTerm()).isEqualTo(3);
    assertThat(second.getCommittedConfigIndex()).isEqualTo(12);
    assertThat(r.report(null)).isSameAs(second);

    r.markFailed(NyalaException.corruption("tablet %s: damaged", TABLET));
    assertThat(r.report(null).getState()).isEqualTo(TabletStatePB.FAILED);
  }

  private static TabletMetadataPB cold(long term, long configIndex) {
    HibernatedStatePB.Builder h = HibernatedStatePB.newBuilder().setTerm(term).setIndex(20)
        .setConfigIndex(configIndex);
    for (String uuid : new String[] {"a", "b", "c"}) {
      h.addPeers(RaftPeerPB.newBuilder().setUuid(uuid));
    }
    return TabletMetadataPB.newBuilder().setTabletId(TABLET)
        .setSchema(TserverFixture.SCHEMA.toPb()).setHibernated(h).build();
  }
}
