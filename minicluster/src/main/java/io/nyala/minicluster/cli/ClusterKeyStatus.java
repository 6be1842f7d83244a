package io.nyala.minicluster.cli;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetClusterKeyStatusRequestPB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB.TabletServerKeyPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a cluster key rotation stands, from every master's {@code GetClusterKeyStatus}
 * (docs/encryption.md, "Rotating the cluster key"): which masters and tablet servers have moved
 * to a version, and how many tablet keys the catalog still holds under an older one.
 *
 * @param masters each master address and its answer, or null when it did not answer
 * @param errors why each master that did not answer did not
 */
record ClusterKeyStatus(Map<HostPort, GetClusterKeyStatusResponsePB> masters,
    Map<HostPort, String> errors) {

  /** Asks every master in {@code addrs}. */
  static ClusterKeyStatus fetch(Channels channels, List<HostPort> addrs, long timeoutMs) {
    Map<HostPort, GetClusterKeyStatusResponsePB> answers = new LinkedHashMap<>();
    Map<HostPort, String> errors = new LinkedHashMap<>();
    for (HostPort m : addrs) {
      try {
        GetClusterKeyStatusResponsePB r = MasterServiceGrpc.newBlockingStub(channels.get(m))
            .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
            .getClusterKeyStatus(GetClusterKeyStatusRequestPB.getDefaultInstance());
        if (NyalaException.isError(r.getError())) {
          throw NyalaException.fromPb(r.getError());
        }
        answers.put(m, r);
      } catch (RuntimeException e) {
        answers.put(m, null);
        errors.put(m, NyalaException.from(e).getMessage());
      }
    }
    return new ClusterKeyStatus(answers, errors);
  }

  /** The leader's answer; SERVICE_UNAVAILABLE naming the addresses when none answered as it. */
  GetClusterKeyStatusResponsePB leader() {
    return masters.values().stream().filter(r -> r != null && r.getLeaderMaster()).findFirst()
        .orElseThrow(() -> NyalaException.unavailable("no leader master answered among %s%s",
            masters.keySet(), errors.isEmpty() ? "" : ": " + errors));
  }

  /** Whether a master has moved: provider, instance file and replayed catalog entries. */
  static boolean moved(GetClusterKeyStatusResponsePB m, int version) {
    return m != null && m.getCurrentVersion() >= version && m.getInstanceKeyVersion() >= version
        && m.getLogKeyVersionsList().stream().allMatch(v -> v >= version);
  }

  /** A tablet server reporting version 0 does not encrypt: it has nothing to move. */
  static boolean moved(TabletServerKeyPB ts, int version) {
    return ts.getKeyVersion() == 0 || ts.getKeyVersion() >= version;
  }

  /** One progress line, e.g. "tablet servers moved: 2/3, masters moved: 1/1, ...". */
  String progress(int version) {
    GetClusterKeyStatusResponsePB l = leader();
    List<TabletServerKeyPB> live = l.getTabletServersList().stream()
        .filter(TabletServerKeyPB::getLive).toList();
    long tsMoved = live.stream().filter(t -> moved(t, version)).count();
    long mMoved = masters.values().stream().filter(m -> moved(m, version)).count();
    return String.format("tablet servers moved: %d/%d, masters moved: %d/%d, catalog keys "
        + "under older versions: %d", tsMoved, live.size(), mMoved, masters.size(),
        l.getCatalogKeysBehind());
  }

  /**
   * What keeps {@code version} from being the only one needed, one phrase each; empty when
   * nothing. {@code deadToo}: a master that does not answer and a tablet server that is down
   * count (for retirement: it could not open its instance file or replay its catalog after
   * it), else only servers that are up do (for starting and waiting: one that is down catches
   * up when it comes back).
   */
  List<String> pending(int version, boolean deadToo) {
    List<String> out = new ArrayList<>();
    masters.forEach((addr, m) -> {
      if (m == null) {
        if (deadToo) {
          out.add("master " + addr + " did not answer (" + errors.get(addr) + ")");
        }
      } else if (!moved(m, version)) {
        out.add("master " + m.getMasterUuid() + " at " + addr + " is at key version "
            + m.getCurrentVersion() + ", instance file at " + m.getInstanceKeyVersion()
            + ", catalog entries a restart replays under " + m.getLogKeyVersionsList());
      }
    });
    GetClusterKeyStatusResponsePB l = leader();
    for (TabletServerKeyPB ts : l.getTabletServersList()) {
      if (!moved(ts, version) && (deadToo || ts.getLive())) {
        out.add("tablet server " + ts.getName() + " (" + ts.getUuid() + ", "
            + (ts.getLive() ? "live" : "down") + ") is at key version " + ts.getKeyVersion());
      }
    }
    if (l.getCatalogKeysBehind() > 0) {
      out.add(l.getCatalogKeysBehind() + " tablet keys in the catalog under an older version");
    }
    return out;
  }
}
