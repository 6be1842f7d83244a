package io.nyala.common.server;

import io.nyala.common.consensus.FollowerCommitGuard;
import io.nyala.common.fault.NetworkFaults;
import io.nyala.common.fault.RaftPartitionFilter;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.WireTls;
import org.apache.ratis.conf.Parameters;

/**
 * Ratis' non-property parameters of a server: on its listener the partition filter
 * (docs/testing.md, "Network partitions") and then the follower commit guard
 * (docs/architecture.md, "A follower commits only what its leader matched"), and its TLS.
 */
final class RaftListenerParameters {
  private RaftListenerParameters() {}

  static Parameters of(NetworkFaults faults, WireTls tls) {
    Parameters p = new Parameters();
    RaftPartitionFilter.install(p, faults);
    FollowerCommitGuard.install(p);
    if (tls.enabled()) {
      TlsContexts.applyToRatis(p, tls.ratis());
    }
    return p;
  }
}
