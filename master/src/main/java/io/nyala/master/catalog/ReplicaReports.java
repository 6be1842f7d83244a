package io.nyala.master.catalog;

import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What tservers last reported about each tablet replica, and each tablet's leader. In memory
 * only: a new leader master asks every tserver for a full report instead of trusting old news.
 * Thread-safe through concurrent maps; each tablet's leader is replaced atomically and only by a
 * report of an equal or higher term, so the leader with the highest term wins.
 */
public final class ReplicaReports {
  /**
   * One replica's last report; {@code copying}: it is being rebuilt by tablet copy (a joiner in
   * progress, see docs/data-safety.md).
   */
  public record ReplicaState(TabletStatePB state, RaftRolePB role, long term,
      int schemaVersion, boolean copying) {}

  /** A tablet's leader as last reported. */
  public record Leader(String uuid, long term) {}

  /** tablet id → tserver uuid → state. */
  private final Map<String, Map<String, ReplicaState>> replicas = new ConcurrentHashMap<>();
  private final Map<String, Leader> leaders = new ConcurrentHashMap<>();
  /** Told a tablet id after its leader changed (the change is visible by then). */
  private final Consumer<String> leaderChanged;

  public ReplicaReports() {
    this(id -> { });
  }

  public ReplicaReports(Consumer<String> leaderChanged) {
    this.leaderChanged = leaderChanged;
  }

  /** Records one reported replica; returns the tablet's leader afterwards (or null). */
  public Leader update(String tsUuid, ReportedTabletPB r) {
    String tabletId = r.getTabletId();
    replicas.computeIfAbsent(tabletId, k -> new ConcurrentHashMap<>())
        .put(tsUuid, new ReplicaState(r.getState(), r.getRole(), r.getTerm(),
            r.getSchemaVersion(), r.getTabletCopyInProgress()));
    String leaderUuid = r.getRole() == RaftRolePB.LEADER ? tsUuid : r.getLeaderUuid();
    if (leaderUuid.isEmpty()) {
      return leaders.get(tabletId);
    }
    Leader reported = new Leader(leaderUuid, r.getTerm());
    Leader before = leaders.get(tabletId);
    Leader after = leaders.merge(tabletId, reported,
        (old, neu) -> neu.term() >= old.term() ? neu : old);
    if (before == null || !before.uuid().equals(after.uuid())) {
      leaderChanged.accept(tabletId);
    }
    return after;
  }

  /**
   * Records the report of a replica that is not (yet) in the catalog's list, so a joiner's copy
   * progress is visible; it never makes the reporter the tablet's leader.
   */
  public void updateOutsider(String tsUuid, ReportedTabletPB r) {
    replicas.computeIfAbsent(r.getTabletId(), k -> new ConcurrentHashMap<>())
        .put(tsUuid, new ReplicaState(r.getState(), r.getRole(), r.getTerm(),
            r.getSchemaVersion(), r.getTabletCopyInProgress()));
  }

  /** The tserver no longer hosts the tablet. */
  public void remove(String tsUuid, String tabletId) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    if (m != null) {
      m.remove(tsUuid);
    }
    Leader before = leaders.get(tabletId);
    if (before != null && before.uuid().equals(tsUuid)
        && leaders.computeIfPresent(tabletId, (k, l) -> l.uuid().equals(tsUuid) ? null : l)
            == null) {
      leaderChanged.accept(tabletId);
    }
  }

  /** After a full report: the tserver hosts exactly {@code reported}; forget the rest. */
  public void retainOnly(String tsUuid, Set<String> reported) {
    for (String tabletId : replicas.keySet()) {
      if (!reported.contains(tabletId)) {
        remove(tsUuid, tabletId);
      }
    }
  }

  /** A deleted tablet: forget it entirely. */
  public void forget(String tabletId) {
    replicas.remove(tabletId);
    leaders.remove(tabletId);
  }

  public Leader leader(String tabletId) {
    return leaders.get(tabletId);
  }

  /** The replica's last report, or null. */
  public ReplicaState replica(String tabletId, String tsUuid) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    return m == null ? null : m.get(tsUuid);
  }

  public boolean hasReported(String tabletId, String tsUuid) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    return m != null && m.containsKey(tsUuid);
  }

  /** Forgets everything: a new leadership starts from fresh reports. */
  public void clear() {
    replicas.clear();
    leaders.clear();
  }
}
